package main

import "testing"

func TestNewKeepsSource(t *testing.T) {
	if New(nil).Source != nil {
		t.Fatal("want nil source")
	}
}
