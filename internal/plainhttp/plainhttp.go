// Package plainhttp decides where Shipyard may send a request over plain HTTP: only where
// the traffic cannot leave the machine, because credentials (a registry's Basic header, a
// GitHub token) travel with it.
package plainhttp

import (
	"net"
	"strings"
)

// EngineGateway is the Dagger engine network's bridge address (upstream's default network
// 10.87.0.0/16). From a module's container, services that run beside the engine, in the
// engine's own network namespace, are reached there and not on loopback; the traffic stays
// inside the engine's namespace.
const EngineGateway = "10.87.0.1"

// Allowed reports whether plain HTTP to host (a host name or IP, without port) stays on
// the machine: a loopback address, localhost, or the engine's bridge gateway.
func Allowed(host string) bool {
	if strings.EqualFold(host, "localhost") || host == EngineGateway {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
