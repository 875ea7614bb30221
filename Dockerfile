# benchgate as a container: a static binary (no cgo: the SQLite driver is
# pure Go) on distroless, running as the non-root user. The queue and the
# cache live in /var/lib/benchgate; mount a volume there so that they
# outlive the container.
#
#   docker build -t benchgate .
#   docker run -p 8080:8080 -v benchgate:/var/lib/benchgate \
#     -v "$PWD/benchgate.yaml:/etc/benchgate/benchgate.yaml:ro" \
#     -v "$PWD/benchgate.private-key.pem:/etc/benchgate/benchgate.private-key.pem:ro" \
#     benchgate serve --config /etc/benchgate/benchgate.yaml
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -buildvcs=false: the build context carries no .git (.dockerignore).
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -o /out/benchgate ./cmd/benchgate \
 && mkdir -p /out/state

# static-debian12 has CA certificates and the nonroot user (65532), and
# nothing else: no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/benchgate /usr/local/bin/benchgate
COPY --from=build --chown=65532:65532 /out/state /var/lib/benchgate
ENV BENCHGATE_DATABASE_URL=sqlite:/var/lib/benchgate/benchgate.db \
    BENCHGATE_CACHE_DIR=/var/lib/benchgate/cache
VOLUME /var/lib/benchgate
USER nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/benchgate"]
CMD ["serve"]
