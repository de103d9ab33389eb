package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.yaml.in/yaml/v3"
)

// kindPlayground is the AST node a ```playground block becomes.
var kindPlayground = ast.NewNodeKind("Playground")

// playgroundNode stands in the lesson's tree where a playground marker was.
type playgroundNode struct {
	ast.BaseBlock
	pg Playground
}

func (n *playgroundNode) Kind() ast.NodeKind { return kindPlayground }

func (n *playgroundNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Preset": n.pg.Preset}, nil)
}

// playgroundRenderer writes a playground marker as a <figure> the web layer
// turns into a live playground. Without JavaScript it still says which
// preset to run and how.
type playgroundRenderer struct{}

func (playgroundRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindPlayground, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			writePlayground(w, node.(*playgroundNode).pg)
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(kindExercise, func(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			writeSlot(w, node.(*exerciseNode).id)
		}
		return ast.WalkSkipChildren, nil
	})
}

func writePlayground(w util.BufWriter, pg Playground) {
	controls, _ := json.Marshal(pg.Controls)
	set, _ := json.Marshal(pg.Set)
	if pg.Predict != "" {
		// The prediction comes first, just above the playground it opens.
		writeSlot(w, pg.Predict)
	}
	preset := pg.Preset
	if pg.Predict != "" {
		// A preset's name can state the outcome ("restart-forgets").
		preset = ""
	}
	fmt.Fprintf(w, `<figure class="playground" id="%s" data-testid="playground" data-preset="%s" data-controls="%s"`,
		html.EscapeString(pg.ID), html.EscapeString(preset), html.EscapeString(string(controls)))
	if len(pg.Set) > 0 {
		fmt.Fprintf(w, ` data-set="%s"`, html.EscapeString(string(set)))
	}
	if pg.Predict != "" {
		fmt.Fprintf(w, ` data-predict="%s"`, html.EscapeString(pg.Predict))
	}
	w.WriteString(">\n")
	if pg.Predict != "" {
		// The caption says what the run shows: it waits for the answer.
		w.WriteString(`<figcaption class="lp-caption lp-gated" data-testid="lp-caption">Predict first: answer the question above, then run it.</figcaption>` + "\n")
	} else {
		fmt.Fprintf(w, `<figcaption class="lp-caption" data-testid="lp-caption">%s</figcaption>`+"\n", html.EscapeString(pg.Caption))
	}
	if pg.Predict != "" {
		// No title, command or link before the prediction: the preset's
		// title says what goes wrong, and a link would run it elsewhere.
		fmt.Fprintf(w, `<p class="playground-fallback">This playground runs once you have answered the prediction above. Without JavaScript, answer it with <code>playground check --exercise %s --answer "…"</code>.</p>`+"\n",
			html.EscapeString(pg.Predict))
	} else {
		fmt.Fprintf(w, `<p class="playground-fallback">Run it yourself: <code>%s</code>, or open <a href="/playground?preset=%s">%s</a> in the playground.</p>`+"\n",
			html.EscapeString(pg.Command()), html.EscapeString(pg.Preset), html.EscapeString(pg.Title))
	}
	w.WriteString("</figure>\n")
}

// kindExercise is the AST node an ```exercise block becomes.
var kindExercise = ast.NewNodeKind("Exercise")

// exerciseNode places an exercise in the lesson's text.
type exerciseNode struct {
	ast.BaseBlock
	id string
}

func (n *exerciseNode) Kind() ast.NodeKind { return kindExercise }

func (n *exerciseNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"ID": n.id}, nil)
}

// slotPrefix and slotSuffix mark where an exercise goes in a rendered
// lesson. Raw HTML is off in lessons, so no text a lesson holds can make
// one: a "<!--" in it is written as "&lt;!--".
const slotPrefix, slotSuffix = "<!--lesson-exercise:", "-->"

func writeSlot(w util.BufWriter, id string) {
	w.WriteString(slotPrefix + id + slotSuffix + "\n")
}

// markdown is the one goldmark instance: GitHub-flavoured Markdown (tables,
// strikethrough, autolinks), heading ids for links into a lesson, and the
// playground renderer. Raw HTML stays off, so a lesson folder cannot put
// script on the page.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.Typographer),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(playgroundRenderer{}, 100))),
)

// markdownMu serialises rendering: goldmark does not document its parser
// and renderer as safe for concurrent use, and prompts are rendered per
// request. A prompt takes microseconds, so the lock costs nothing.
var markdownMu sync.Mutex

// renderMarkdown renders a short piece (a prompt, a solution) that has no
// playground markers.
func renderMarkdown(src string) (string, error) {
	markdownMu.Lock()
	defer markdownMu.Unlock()
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// Heading is a section of a lesson, for a table of contents.
type Heading struct {
	Level int    `json:"level"`
	ID    string `json:"id"`
	Text  string `json:"text"`
}

// renderLesson parses a lesson body, replaces each playground marker with
// its node (parsing and checking the marker on the way), and renders it.
// lineOffset is the line the body starts on in the file, minus one.
func renderLesson(file string, body []byte, lineOffset int, presets []string) (string, []Playground, []Heading, []error) {
	markdownMu.Lock()
	defer markdownMu.Unlock()
	doc := markdown.Parser().Parse(text.NewReader(body))
	var errs []error
	var pgs []Playground
	var heads []Heading
	var markers, exMarkers []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			switch string(n.Language(body)) {
			case "playground":
				markers = append(markers, n)
			case "exercise":
				exMarkers = append(exMarkers, n)
			}
		case *ast.Heading:
			id, _ := n.AttributeString("id")
			idb, _ := id.([]byte)
			heads = append(heads, Heading{Level: n.Level, ID: string(idb), Text: plainText(n, body)})
		}
		return ast.WalkContinue, nil
	})
	for i, m := range markers {
		line := lineOffset + 1 + bytes.Count(body[:blockStart(m, body)], []byte("\n"))
		var src strings.Builder
		for j := 0; j < m.Lines().Len(); j++ {
			seg := m.Lines().At(j)
			src.Write(seg.Value(body))
		}
		pg, err := parsePlayground(src.String(), presets)
		if err != nil {
			errs = append(errs, &LoadError{File: file, Line: line, Msg: "playground marker: " + err.Error()})
			continue
		}
		pg.ID = fmt.Sprintf("playground-%d", i+1)
		pgs = append(pgs, pg)
		m.Parent().ReplaceChild(m.Parent(), m, &playgroundNode{pg: pg})
	}
	for _, m := range exMarkers {
		line := lineOffset + 1 + bytes.Count(body[:blockStart(m, body)], []byte("\n"))
		var src strings.Builder
		for j := 0; j < m.Lines().Len(); j++ {
			seg := m.Lines().At(j)
			src.Write(seg.Value(body))
		}
		var spec struct {
			ID string `yaml:"id"`
		}
		dec := yaml.NewDecoder(strings.NewReader(src.String()))
		dec.KnownFields(true)
		if err := dec.Decode(&spec); err != nil || !idRE.MatchString(spec.ID) {
			errs = append(errs, &LoadError{File: file, Line: line, Msg: "exercise marker: write it as a block of one line, id: <the exercise's id>"})
			continue
		}
		m.Parent().ReplaceChild(m.Parent(), m, &exerciseNode{id: spec.ID})
	}
	if len(errs) > 0 {
		return "", nil, nil, errs
	}
	var buf bytes.Buffer
	if err := markdown.Renderer().Render(&buf, body, doc); err != nil {
		return "", nil, nil, []error{&LoadError{File: file, Msg: err.Error()}}
	}
	return buf.String(), pgs, heads, nil
}

// blockStart is the byte offset of a fenced block's opening fence: its
// first content line, minus the fence line. An empty block has no lines, so
// its info string is used.
func blockStart(m *ast.FencedCodeBlock, body []byte) int {
	if m.Info != nil {
		return m.Info.Segment.Start
	}
	if m.Lines().Len() > 0 {
		start := m.Lines().At(0).Start
		return max(0, bytes.LastIndexByte(body[:max(0, start-1)], '\n')+1)
	}
	return 0
}

// plainText is a heading's text without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(src))
				if t.SoftLineBreak() {
					b.WriteByte(' ')
				}
			} else if s, ok := c.(*ast.String); ok {
				// The typographer's quotes and dashes come as HTML
				// entities; a contents list shows text, not HTML.
				b.WriteString(html.UnescapeString(string(s.Value)))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Segment is a piece of a lesson's body: HTML, then optionally the
// exercise placed after it in the text (a prediction before the text that
// explains its outcome, or before the playground it opens).
type Segment struct {
	HTML     string `json:"html"`
	Exercise string `json:"exercise,omitempty"`
}

// splitSlots cuts rendered HTML at its exercise slots.
func splitSlots(h string) []Segment {
	var out []Segment
	for {
		i := strings.Index(h, slotPrefix)
		if i < 0 {
			return append(out, Segment{HTML: h})
		}
		j := strings.Index(h[i:], slotSuffix)
		id := h[i+len(slotPrefix) : i+j]
		out = append(out, Segment{HTML: h[:i], Exercise: id})
		h = strings.TrimPrefix(h[i+j+len(slotSuffix):], "\n")
	}
}
