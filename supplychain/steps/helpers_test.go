package steps_test

import (
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func remoteWrite(ref name.Reference, img v1.Image) error { return remote.Write(ref, img) }
