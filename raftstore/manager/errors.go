package manager

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// PBS error numbers used only by manager requests. The texts are those of
// pbs_messages.c.
const (
	PBSEQueueExists     = 15025
	PBSEObjBusy         = 15027
	PBSENodeExists      = 15066
	PBSEResourceExists  = 15169
	PBSEHookError       = model.PBSEHookError
	PBSEProvHeadError   = 15145
	PBSENodeProvNoAct   = 15146
	PBSENodeProv        = 15147
	PBSENodeProvNoDel   = 15148
	PBSENodeBadCurAOE   = 15149
	PBSEResourceBusyUse = 15170
)

var messages = map[int]string{
	PBSEQueueExists:     "Queue already exists",
	PBSEObjBusy:         "Request invalid for state of queue: queue has jobs",
	PBSENodeExists:      "Node name already exists",
	PBSEResourceExists:  "Duplicate entry in resource definition",
	PBSEProvHeadError:   "Cannot set provisioning attribute on host running PBS server and scheduler",
	PBSENodeProvNoAct:   "Cannot modify attribute while vnode is provisioning",
	PBSENodeProv:        "Cannot change state of provisioning vnode",
	PBSENodeProvNoDel:   "Cannot delete vnode if vnode is provisioning",
	PBSENodeBadCurAOE:   "Current AOE does not match with resources_available.aoe",
	PBSEResourceBusyUse: "Resource busy",
}

func perr(code int) error {
	if m, ok := messages[code]; ok {
		return &model.PBSError{Code: code, Msg: m}
	}
	return model.Err(code)
}

// badValue is PBSE_BADATVAL naming the attribute, as PBS does.
func badValue(a Attr) error {
	return model.Errorf(model.PBSEBadAttrVal, " %s", a.Key())
}

// noAttr is PBSE_NOATTR naming the attribute.
func noAttr(a Attr) error { return model.Errorf(model.PBSENoAttr, " %s", a.Key()) }

// hookErr is a hook rule violation; qmgr adds "hook error returned from
// server".
func hookErr(format string, args ...any) error {
	return &model.PBSError{Code: PBSEHookError, Msg: fmt.Sprintf(format, args...)}
}

// IsHookError reports whether code is a hook error.
func IsHookError(code int) bool { return code == PBSEHookError }
