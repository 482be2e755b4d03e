// Package fillvalue sets every field of a value to a non-zero value, for
// tests that must cover fields added to a type after the test was written
// (a job split into parts and joined again, a record read into an older
// layout of its type).
package fillvalue

import (
	"fmt"
	"reflect"
)

// Fill sets every settable field of v to a non-zero value derived from n:
// strings "s<n>", numbers n, booleans true, one element in slices and
// maps, pointers to filled values; struct fields get n plus their index.
func Fill(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(n))
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		v.SetUint(uint64(n))
	case reflect.Float64:
		v.SetFloat(float64(n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		Fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		Fill(v.Index(0), n)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		Fill(k, n)
		Fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				Fill(v.Field(i), n+i)
			}
		}
	}
}
