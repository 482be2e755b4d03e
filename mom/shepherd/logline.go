package shepherd

import (
	"io"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// maxLogLine bounds one line of the shepherds' shared log.
const maxLogLine = 4096

// logLines is the writer under a shepherd's logger, whose lines go to the
// log all shepherds of an agent share (<spool>/shepherd.log). log.Logger
// writes each message whole, so every Write is one line: control
// characters inside it are escaped (model.AcctEscape) and it is cut at
// maxLogLine. Text the job's owner controls reaches this log (a transfer
// helper's stderr, a copy's error from a host the user chose), and must
// neither forge a line of another run nor flood the log.
type logLines struct{ w io.Writer }

func (l logLines) Write(p []byte) (int, error) {
	line := model.AcctEscape(strings.TrimSuffix(string(p), "\n"))
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + " ... (cut)"
	}
	if _, err := io.WriteString(l.w, line+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}
