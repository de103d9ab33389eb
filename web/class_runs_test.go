package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestAPredictionsRunBeforePredictingIsNoted: a class learner who ran a
// prediction's very scenario before predicting (through the API, a
// shared link's history, or a live run) has that first answer marked, and
// the teacher reads it in the predictions chart and attempts.csv; a
// learner who predicted first, or ran another scenario, is not marked,
// and nothing is scored by it. A visitor outside any class runs as
// before.
func TestAPredictionsRunBeforePredictingIsNoted(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		pred := firstPrediction(t)
		c := createClass(t, base, "Peek")
		owner := teacher(t, base, c.TeacherKey)
		// A class that shares its numbers: every learner's scenario is
		// the lesson's (variant 0).
		wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/variants", `{"variants":"shared"}`), http.StatusOK, "shared variants")
		sc, err := pred.PredictionScenario(0)
		if err != nil {
			t.Fatal(err)
		}
		scenario, _ := json.Marshal(sc)
		other := sc
		other.Fencing = !sc.Fencing
		otherJSON, _ := json.Marshal(other)
		share, err := web.EncodeShare(sc)
		if err != nil {
			t.Fatal(err)
		}

		ada, _ := join(t, base, c.Code, "Ada")
		bo, _ := join(t, base, c.Code, "Bo")
		cy, _ := join(t, base, c.Code, "Cy")
		dee, _ := join(t, base, c.Code, "Dee")
		eve, _ := join(t, base, c.Code, "Eve")
		predict := func(p *person) *classroom.Attempt {
			t.Helper()
			a, err := st.Record(context.Background(), p.cookie(web.LearnerCookie), classroom.Attempt{
				Exercise: pred.ID, Answer: "1", Parsed: "1", Graded: true, Rule: classroom.RuleFirstTry})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}

		wantStatus(t, ada.postJSON("/api/run", string(scenario)), http.StatusOK, "Ada's run")
		wantStatus(t, bo.get("/api/history?s="+share), http.StatusOK, "Bo's history")
		liveRun(t, base, cy, scenario)
		wantStatus(t, dee.postJSON("/api/run", string(otherJSON)), http.StatusOK, "Dee's run of another scenario")
		wantStatus(t, newPerson(t, base).postJSON("/api/run", string(scenario)), http.StatusOK, "a visitor's run")
		for _, p := range []*person{ada, bo, cy, dee, eve} {
			predict(p)
		}
		// Eve runs it after predicting: her first answer stands
		// unmarked, a second is marked.
		wantStatus(t, eve.postJSON("/api/run", string(scenario)), http.StatusOK, "Eve's run")
		if a := predict(eve); !a.AfterRun || a.Score != 0 {
			t.Errorf("Eve's second answer, after her run: %+v", a)
		}

		var chart struct {
			Total    int `json:"total"`
			RanFirst int `json:"ran_first"`
			Answers  []struct {
				Count    int `json:"count"`
				RanFirst int `json:"ran_first"`
			} `json:"answers"`
		}
		a := owner.get("/api/classes/" + c.Code + "/predictions?exercise=" + pred.ID)
		wantStatus(t, a, http.StatusOK, "predictions")
		a.decode(t, &chart)
		if chart.Total != 5 || chart.RanFirst != 3 || len(chart.Answers) != 1 || chart.Answers[0].RanFirst != 3 {
			t.Errorf("the chart reads %s, want 5 answers, 3 of them after a run", a.body)
		}

		rows := readCSV(t, owner.get("/api/classes/"+c.Code+"/attempts.csv").body)
		col := -1
		for i, h := range rows[0] {
			if h == "after_run" {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("attempts.csv has no after_run column: %v", rows[0])
		}
		var got []string
		for _, r := range rows[1:] {
			got = append(got, r[0]+":"+r[col])
		}
		if strings.Join(got, " ") != "Ada:1 Bo:1 Cy:1 Dee:0 Eve:0 Eve:1" {
			t.Errorf("attempts.csv after_run: %v", got)
		}
	})
}

// liveRun runs scenario over the playground's websocket as p, until its
// summary.
func liveRun(t *testing.T, base string, p *person, scenario []byte) {
	t.Helper()
	h := http.Header{"Origin": {base}, "Cookie": {web.LearnerCookie + "=" + p.cookie(web.LearnerCookie)}}
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws/run", h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"start","speed":0,"scenario":`+string(scenario)+`}`)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		var m web.ServerMessage
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("the live run: %v", err)
		}
		switch m.Type {
		case web.MsgSummary:
			return
		case web.MsgError:
			t.Fatalf("the live run: %s", m.Message)
		}
	}
}
