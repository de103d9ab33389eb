package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestCheckRequiresJSON: the check endpoint, like every other JSON API,
// takes only application/json, so that an HTML form (which can send only
// form encodings and text/plain) can never record an answer for a
// learner whose cookie it rides on. A refused check records nothing.
func TestCheckRequiresJSON(t *testing.T) {
	st, nc, sess := joinedLearner(t)
	ts, _ := startServer(t, web.Config{Classroom: st})
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/exercises/outlive-lease/check", strings.NewReader(`{"answer":"50"}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.AddCookie(&http.Cookie{Name: web.LearnerCookie, Value: sess.Token})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error, Field, Code string }
		json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != http.StatusUnsupportedMediaType || e.Field != "Content-Type" || e.Code != "media_type" ||
			!strings.Contains(e.Error, "must be application/json") {
			t.Errorf("check sent as %q: %d %+v", ct, res.StatusCode, e)
		}
	}
	d, err := st.Dashboard(context.Background(), nc.Class.Code, nc.TeacherKey)
	if err != nil || len(d.Progress) != 0 {
		t.Fatalf("refused checks left progress %+v, %v", d.Progress, err)
	}
}
