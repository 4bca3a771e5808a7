package gpu

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestFindSuggests: a name the catalog lacks gets the entries a user most
// likely meant, by key and by marketing name. The wanted keys are read off
// catalog.yaml's keys and names by hand.
func TestFindSuggests(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"a100", []string{"a100-sxm-40", "a100-sxm-80", "a100-pcie-40", "a100-pcie-80"}}, // prefix of four keys
		{"4090", []string{"rtx-4090"}},                 // in "GeForce RTX 4090"
		{"A4500", []string{"rtx-a4500"}},               // in "RTX A4500"
		{"h300", []string{"h100-sxm", "h200"}},         // one letter from the aliases H100, H200
		{"rtx 4080", []string{"rtx-4060", "rtx-4090"}}, // one digit from two keys
		{"xyz-9999", nil},                              // nothing near
	} {
		_, err := Find(tc.name)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("Find(%q): %v; want a *NotFoundError", tc.name, err)
			continue
		}
		var got []string
		for _, s := range nf.Nearest {
			got = append(got, s.Key)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q) suggests %q, want %q", tc.name, got, tc.want)
		}
		for _, k := range tc.want {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("Find(%q): error %q does not name %s", tc.name, err, k)
			}
		}
		if strings.Contains(err.Error(), "lists it") {
			t.Errorf("Find(%q): error %q says the catalog lists it", tc.name, err)
		}
	}
	if s, err := Find("NVIDIA H100 80GB HBM3"); err != nil || s.Key != "h100-sxm" {
		t.Errorf("Find(NVIDIA H100 80GB HBM3) = %s, %v; want h100-sxm", s.Key, err)
	}
}
