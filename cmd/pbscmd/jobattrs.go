package pbscmd

import (
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/model/pbsattr"
)

// attr is one attribute as the status outputs show it (pbsattr.Attr: the
// web page writes jobs from the same list).
type attr = pbsattr.Attr

// jobAttrs lists a job's attributes in the server's definition order (the
// order of OpenPBS's qstat -f), leaving out the ones that are not set.
func jobAttrs(j *model.Job, defs model.ResourceDefs, loc *time.Location) []attr {
	return pbsattr.Job(j, defs, loc)
}
