module ledgerd.test/tlogcheck

go 1.26

require (
	filippo.io/torchwood v0.6.1
	github.com/transparency-dev/formats v0.1.1
	github.com/transparency-dev/merkle v0.0.2
	golang.org/x/mod v0.36.0
)

require (
	filippo.io/mldsa v0.0.0-20260215214346-43d0283efc3e // indirect
	golang.org/x/crypto v0.52.0 // indirect
	golang.org/x/sync v0.14.0 // indirect
)
