package console

import (
	"reflect"
	"testing"
)

func TestLayered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []string
		edges [][2]string
		want  map[string]Place
	}{
		{"one node", []string{"a"}, nil, map[string]Place{"a": {0, 0}}},
		{"chain", []string{"a", "b", "c"}, [][2]string{{"a", "b"}, {"b", "c"}},
			map[string]Place{"a": {0, 0}, "b": {1, 0}, "c": {2, 0}}},
		{"fork and join: the join lands after its first producer",
			[]string{"A1", "G1", "H1", "J1"}, [][2]string{{"A1", "G1"}, {"A1", "H1"}, {"G1", "J1"}, {"H1", "J1"}},
			map[string]Place{"A1": {0, 0}, "G1": {1, 0}, "J1": {2, 0}, "H1": {1, 1}}},
		{"a loop back to the start keeps the start first",
			[]string{"a", "b"}, [][2]string{{"a", "b"}, {"b", "a"}},
			map[string]Place{"a": {0, 0}, "b": {1, 0}}},
		{"two trees stack", []string{"a", "b", "x"}, [][2]string{{"a", "b"}},
			map[string]Place{"a": {0, 0}, "b": {1, 0}, "x": {0, 1}}},
		{"unknown and self edges are ignored", []string{"a"}, [][2]string{{"a", "a"}, {"a", "zz"}},
			map[string]Place{"a": {0, 0}}},
	} {
		if got := Layered(tc.ids, tc.edges); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
