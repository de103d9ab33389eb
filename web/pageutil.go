package web

import (
	"math"
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

// maxSpeedSlider is the speed slider's value for "as fast as possible":
// its right end, past the engine's fastest paced speed (log10 1000 = 3).
const maxSpeedSlider = 3.2

// speedSlider is a speed's place on the speed slider, which is
// logarithmic: -1 is 0.1 s per second, 3 is 1000.
func speedSlider(v float64) string {
	if v == 0 {
		return strconv.FormatFloat(maxSpeedSlider, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(math.Log10(v)*100)/100, 'f', -1, 64)
}

// current is the aria-current value of a navigation link: "page" for the
// page shown, "false" for the others (an empty value would mean nothing).
func current(here bool) string {
	if here {
		return "page"
	}
	return "false"
}

// transportIcons are the run controls' pictures (SVG, so that no font
// needs the media symbols); static/js/playground.js swaps play and pause.
var transportIcons = map[string]string{
	"back":    `<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h2v10H3zM14 3v10L6 8z"/></svg>`,
	"play":    `<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg>`,
	"pause":   `<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2h3v12H4zM9 2h3v12H9z"/></svg>`,
	"forward": `<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M2 3v10l8-5zM11 3h2v10h-2z"/></svg>`,
	"stop":    `<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h10v10H3z"/></svg>`,
}
