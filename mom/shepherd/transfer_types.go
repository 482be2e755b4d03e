package shepherd

import "strings"

// Transfer item operations.
const (
	OpDeliver = "deliver" // copy descriptor 3+FD to Host:Remote
	OpIn      = "in"      // copy Host:Remote to Local
	OpOut     = "out"     // copy Local (wildcards allowed) to Host:Remote, then remove Local
	OpRemove  = "remove"  // remove Local (a staged-in file at the end of the job)
)

// TransferRequest is the helper's stdin.
type TransferRequest struct {
	Config TransferConfig `json:"config"`
	User   SSHUser        `json:"user"`
	Umask  int            `json:"umask"`
	Items  []TransferItem `json:"items"`
}

// TransferItem is one copy.
type TransferItem struct {
	Op        string `json:"op"`
	FD        int    `json:"fd,omitempty"`
	NameInDir string `json:"name_in_dir,omitempty"`
	Local     string `json:"local,omitempty"`
	Host      string `json:"host,omitempty"`
	Remote    string `json:"remote,omitempty"`
}

// TransferResult is the outcome of one item.
type TransferResult struct {
	Err string `json:"error,omitempty"`
	// Files are the local paths a stage-in created (removed when the
	// job ends).
	Files []string `json:"files,omitempty"`
}

// MaxTransferRequest bounds the helper's input.
const MaxTransferRequest = 4 << 20

// SSHUser is who the helper connects as: the job owner.
type SSHUser struct {
	UID  int
	Name string
	Home string
}

// Expand replaces %h and %u in a configured path.
func (u SSHUser) Expand(p string) string {
	return strings.NewReplacer("%h", u.Home, "%u", u.Name, "%%", "%").Replace(p)
}
