//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// chromiumPath finds Debian's chromium, or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install chromium; .ci/run does): the web page's browser test needs it")
	return ""
}

// headless runs chromium once on url with a fresh profile. The virtual
// time budget lets the page's scripts fetch and draw the state before the
// DOM is dumped or the screenshot taken.
func headless(t *testing.T, chrome, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := []string{"--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000"}
	if os.Geteuid() == 0 {
		all = append(all, "--no-sandbox") // chromium refuses root otherwise
	}
	cmd := exec.CommandContext(ctx, chrome, append(append(all, args...), url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, tail(errb.String(), 2000))
	}
	return out.Bytes()
}

// artifactDir is where the test leaves its screenshot:
// $STRATA_TEST_ARTIFACTS, or a directory under the system's temp dir
// (kept after the test, and logged).
func artifactDir(t *testing.T) string {
	dir := os.Getenv("STRATA_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "strata-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	tileRE = regexp.MustCompile(`<div class="tile [^"]*" data-node="([^"]*)" data-state="([^"]*)" data-aoe="([^"]*)"`)
	rowRE  = regexp.MustCompile(`<tr data-job="([^"]*)" data-state="([^"]*)"`)
)

// domNodes and domJobs read the page's node map and job table as
// "name state aoe" and "id state" lines, sorted.
func domNodes(dom string) []string {
	var out []string
	for _, m := range tileRE.FindAllStringSubmatch(dom, -1) {
		out = append(out, html.UnescapeString(m[1])+" "+html.UnescapeString(m[2])+" "+html.UnescapeString(m[3]))
	}
	sort.Strings(out)
	return out
}

func domJobs(dom string) []string {
	var out []string
	for _, m := range rowRE.FindAllStringSubmatch(dom, -1) {
		out = append(out, html.UnescapeString(m[1])+" "+m[2])
	}
	sort.Strings(out)
	return out
}

// cliNodes and cliJobs are the same lines from pbsnodes -a -F json and
// qstat -f -F json.
func (c *cluster) cliNodes() []string {
	c.t.Helper()
	var doc struct {
		Nodes map[string]struct {
			State string `json:"state"`
			AOE   string `json:"current_aoe"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(c.must("pbsnodes", "-a", "-F", "json")), &doc); err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for name, n := range doc.Nodes {
		out = append(out, name+" "+n.State+" "+n.AOE)
	}
	sort.Strings(out)
	return out
}

func (c *cluster) cliJobs() []string {
	c.t.Helper()
	var doc struct {
		Jobs map[string]struct {
			State string `json:"job_state"`
		} `json:"Jobs"`
	}
	if err := json.Unmarshal([]byte(c.must("qstat", "-f", "-F", "json")), &doc); err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for id, j := range doc.Jobs {
		out = append(out, id+" "+j.State)
	}
	sort.Strings(out)
	return out
}

// TestWebPageInBrowser loads /ui/ in headless Chromium during a
// provisioning run and checks that the DOM shows the nodes, their states
// and AOEs as pbsnodes -a -F json does, and the jobs and their states as
// qstat -f -F json does; it saves a screenshot as an artifact. Without a
// login the same page shows the node map and no job.
func TestWebPageInBrowser(t *testing.T) {
	chrome := chromiumPath(t)
	c := startProvCluster(t, 4, "")
	// A slow hook, so that the map is caught provisioning.
	c.provHook("sleep 15\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\nexit 0")
	for _, n := range []string{"node3", "node4"} {
		c.provNode(n, "rhel9,sles15")
	}
	c.must("qmgr", "-c", `set node node4 current_aoe = sles15`)
	plain := c.submit("sleep 600\n", "-N", "plain", "-l", "select=1:ncpus=2", "-l", "walltime=00:20:00")
	c.waitState(plain, 30*time.Second, "R")
	c.submit("sleep 600\n", "-N", "needs_rhel9", "-l", "select=1:ncpus=2:aoe=rhel9", "-l", "walltime=00:30:00")
	c.must("qmgr", "-c", "set sched strict_ordering = true") // the wide job becomes a top job
	wide := c.submit("sleep 60\n", "-N", "wide", "-l", "select=4:ncpus=2", "-l", "walltime=01:00:00")
	waitFor(t, 30*time.Second, "a vnode provisioning", func() bool {
		return strings.Contains(strings.Join(c.cliNodes(), "\n"), "provisioning")
	})

	// Logged in (root sees every job): the DOM equals the commands'
	// view, taken before and after the page (states move on during a
	// provisioning run, so a pass needs the two to agree).
	var dom string
	var nodes, jobs []string
	waitFor(t, 60*time.Second, "the page to show what pbsnodes and qstat show", func() bool {
		nodes, jobs = c.cliNodes(), c.cliJobs()
		link := strings.TrimSpace(c.must("strata", "web", "login"))
		dom = string(headless(t, chrome, link, "--dump-dom"))
		same := fmt.Sprint(nodes) == fmt.Sprint(c.cliNodes()) && fmt.Sprint(jobs) == fmt.Sprint(c.cliJobs())
		return same && fmt.Sprint(domNodes(dom)) == fmt.Sprint(nodes) && fmt.Sprint(domJobs(dom)) == fmt.Sprint(jobs)
	})
	if len(nodes) != 4 || len(jobs) != 3 || !strings.Contains(dom, "logged in as root@") {
		t.Errorf("page: nodes %v jobs %v", nodes, jobs)
	}

	// The screenshot, while provisioning is under way.
	shot := filepath.Join(artifactDir(t), "web-node-map.png")
	link := strings.TrimSpace(c.must("strata", "web", "login"))
	headless(t, chrome, link, "--window-size=1280,1200", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 10_000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s: %d bytes, %v", shot, len(png), err)
	}
	t.Logf("screenshot: %s", shot)

	// Once the scheduler has estimated the top job's start, the queue's
	// timeline draws it as an estimate.
	waitFor(t, 60*time.Second, "the wide job's estimated start", func() bool {
		return str(c.job(wide)["estimated"]) != ""
	})
	waitFor(t, 60*time.Second, "the estimate on the page's timeline", func() bool {
		dom = string(headless(t, chrome, strings.TrimSpace(c.must("strata", "web", "login")), "--dump-dom"))
		return regexp.MustCompile(`class="span est"[^>]*>` + regexp.QuoteMeta(wide) + ` wide<`).MatchString(dom)
	})

	// A link for one job opens its detail: qstat -f's attributes and
	// tracejob's lines, as the commands print them.
	dom = string(headless(t, chrome, strings.TrimSpace(c.must("strata", "web", "login", "--job", plain)), "--dump-dom"))
	trace := c.must("tracejob", plain)
	attrs := regexp.MustCompile(`(?s)<pre id="job-attrs">(.*?)</pre>`).FindStringSubmatch(dom)
	lines := regexp.MustCompile(`(?s)<pre id="job-trace">(.*?)</pre>`).FindStringSubmatch(dom)
	if attrs == nil || !strings.Contains(attrs[1], "Job Id: "+plain) || !strings.Contains(attrs[1], "name = plain") || !strings.Contains(attrs[1], "state = R") {
		t.Errorf("job detail attributes: %v", attrs)
	}
	// The first event (queued) reads the same on the page as in tracejob.
	first := ""
	for _, l := range strings.Split(trace, "\n") {
		if strings.Contains(l, "  S    ") {
			first = l
			break
		}
	}
	if lines == nil || first == "" || !strings.Contains(html.UnescapeString(lines[1]), first) {
		t.Errorf("job detail history %v lacks tracejob's line %q", lines, first)
	}

	// Anonymous: the node map is there, no job is.
	anon := string(headless(t, chrome, webBase(t, c)+"/ui/", "--dump-dom"))
	if len(domNodes(anon)) != 4 || len(domJobs(anon)) != 0 || strings.Contains(anon, "needs_rhel9") {
		t.Errorf("anonymous page: nodes %v jobs %v", domNodes(anon), domJobs(anon))
	}
}
