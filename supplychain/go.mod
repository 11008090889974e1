module dagger/shipyard/supplychain

go 1.26

require (
	github.com/google/go-containerregistry v0.21.7 // indirect
	github.com/sigstore/sigstore-go v1.3.0 // indirect
)
