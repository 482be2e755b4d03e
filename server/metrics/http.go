package metrics

import (
	"net/http"
	"strconv"
	"time"
)

// Middleware counts and times every API request by the route pattern the
// mux matched (a fixed set, so a caller cannot mint label values with
// made-up paths: unmatched requests share "unmatched").
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		route := r.Pattern // set by the ServeMux on this request
		if route == "" {
			route = "unmatched"
		}
		m.apiRequests.WithLabelValues(route, strconv.Itoa(sw.code)).Inc()
		m.apiDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status code; Unwrap keeps
// http.ResponseController (deadlines, flushing) working through it.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
