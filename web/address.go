package web

import (
	"net/netip"

	"github.com/labstack/echo/v4"
)

// clientAddress is the address a request's shares and limits are counted
// against: the client's IP (see TrustProxies), with an IPv6 address cut to
// its /64. One IPv6 host is usually handed a whole /64, so counting its
// addresses one by one would give it 2^64 shares.
func clientAddress(c echo.Context) string { return addressKey(c.RealIP()) }

// addressKey is ip as clientAddress counts it. Something that is not an
// address (it cannot come from a socket, only from a test) is its own key.
func addressKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}
