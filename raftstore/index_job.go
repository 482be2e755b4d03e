package raftstore

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// jobStringIndex indexes jobs by one string attribute, as go-memdb's
// StringFieldIndex does (same keys: the value and a NUL; an empty value
// is missing), but through a function instead of reflection: the
// attributes of model.JobExt are read through accessors (a nil JobExt
// reads as ""), which reflection's FieldByName cannot follow, and a
// function call is cheaper than a reflective lookup on every insert.
type jobStringIndex struct {
	field string // for error messages
	get   func(*model.Job) string
}

func (x jobStringIndex) FromObject(obj any) (bool, []byte, error) {
	j, ok := obj.(*model.Job)
	if !ok {
		return false, nil, fmt.Errorf("index %s: %T is not a job", x.field, obj)
	}
	v := x.get(j)
	if v == "" {
		return false, nil, nil
	}
	return true, append([]byte(v), 0), nil
}

func (x jobStringIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index %s: must provide only a single argument", x.field)
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("index %s: argument must be a string: %#v", x.field, args[0])
	}
	return append([]byte(s), 0), nil
}

// PrefixFromArgs makes "<index>_prefix" lookups work as with
// StringFieldIndex: the key without its terminator.
func (x jobStringIndex) PrefixFromArgs(args ...any) ([]byte, error) {
	k, err := x.FromArgs(args...)
	if err != nil {
		return nil, err
	}
	return k[:len(k)-1], nil
}
