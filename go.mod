module github.com/benchgate/benchgate

go 1.26

require (
	github.com/gomarkdown/markdown v0.0.0-20261107153045-a51d70be185e
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/sashabaranov/go-openai v1.43.0
)
