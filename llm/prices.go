package llm

// Prices are a model's prices in USD per million tokens.
type Prices struct {
	Input, Output float64
	// CachedInput is the price of prompt tokens read from the provider's
	// cache; nil prices them as Input.
	CachedInput *float64
}

// Cost returns the cost of a call of prompt tokens, cached of them read
// from the cache, and completion tokens.
func (p Prices) Cost(prompt, cached, completion int) float64 {
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	cached = min(max(cached, 0), prompt)
	return (float64(prompt-cached)*p.Input + float64(cached)*cachedPrice + float64(completion)*p.Output) / 1e6
}
