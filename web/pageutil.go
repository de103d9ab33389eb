package web

import (
	"net/http"
	"strconv"
)

func statusTitle(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusBadRequest:
		return "That request was not understood"
	case http.StatusServiceUnavailable:
		return "Busy: try again in a minute"
	}
	if status >= 500 {
		return "Sorry, something went wrong"
	}
	return strconv.Itoa(status) + " " + http.StatusText(status)
}

// speedLabel names a speed in the speed menu.
func speedLabel(v float64) string {
	if v == 0 {
		return "as fast as possible"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " s per second"
}

func speedValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// current is the aria-current value of a navigation link: "page" for the
// page shown, "false" for the others (an empty value would mean nothing).
func current(here bool) string {
	if here {
		return "page"
	}
	return "false"
}
