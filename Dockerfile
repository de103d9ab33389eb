# The playground as one static binary on a distroless base, run as a
# non-root user. The build line is the one cmd/playground's
# TestDockerfileBuildCommand runs without Docker, so it stays correct.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/playground ./cmd/playground
# The classroom's SQLite folder, owned by distroless's nonroot (65532): a
# named volume mounted on it starts with this owner.
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/playground /playground
COPY --from=build --chown=65532:65532 /out/data /data
USER nonroot:nonroot
ENV PLAYGROUND_ADDR=:8080
# Classes and answers live here (SQLite, WAL). Mount a volume to keep them
# across containers; set DATABASE_URL to use PostgreSQL instead.
ENV PLAYGROUND_DATA=/data
VOLUME /data
EXPOSE 8080
# The image has no shell or curl: the binary probes its own /healthz.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/playground", "serve", "--healthcheck"]
ENTRYPOINT ["/playground"]
CMD ["serve"]
