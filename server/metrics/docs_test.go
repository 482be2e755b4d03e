package metrics_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsListEverySeries keeps docs/metrics.md and the example Grafana
// dashboard in step with the code: every series name the server and agent
// define is documented, and the dashboard queries only documented names.
func TestDocsListEverySeries(t *testing.T) {
	name := regexp.MustCompile(`"(strata_[a-z_]+)"`)
	sources, _ := filepath.Glob("*.go")
	sources = append(sources, "../../mom/metrics.go")
	defined := map[string]bool{}
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
	}
	if len(defined) < 30 {
		t.Fatalf("found only %d series names in the sources", len(defined))
	}
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("\\| `(strata_[a-z_]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	for n := range defined {
		if !documented[n] {
			t.Errorf("%s is not in the tables of docs/metrics.md", n)
		}
	}
	for n := range documented {
		if !defined[n] {
			t.Errorf("docs/metrics.md lists %s, which no code defines", n)
		}
	}
	b, err := os.ReadFile("../../docs/grafana-strata.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("docs/grafana-strata.json: %v", err)
	}
	used := regexp.MustCompile(`strata_[a-z_]+`)
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, n := range used.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_count"), "_sum")
				if !documented[base] && !documented[n] {
					t.Errorf("dashboard panel %q queries %s, which docs/metrics.md does not list", p.Title, n)
				}
			}
		}
	}
}
