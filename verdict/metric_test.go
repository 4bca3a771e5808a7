package verdict

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every metric name a warning is given in the code (`Metric: "..."` in
// analysis, suggest, project, pipeline, verdict and reports) has a family,
// so that the warning voids the claims it concerns: the warning that a cell
// has no nsys timeline ("gpu_time_ns", its kernel count taken from the ncu
// kernel pass) voids a kernel_count claim.
func TestWarningMetricsHaveFamilies(t *testing.T) {
	lit := regexp.MustCompile(`Metric:\s*"([a-z_]+)"`)
	seen := 0
	for _, dir := range []string{"../analysis", "../suggest", "../project", "../pipeline", ".", "../reports"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range lit.FindAllStringSubmatch(string(src), -1) {
				seen++
				name := m[1]
				if _, ok := metricOf(name); ok {
					continue
				}
				if _, ok := warningFamilies[name]; !ok {
					t.Errorf("%s: warning metric %q has no family (warningFamilies)", f, name)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no warning metric found in the sources")
	}
	if family("gpu_time_ns") != family(MetricKernelCount) {
		t.Errorf("a missing nsys timeline (gpu_time_ns) is family %q, kernel_count %q", family("gpu_time_ns"), family(MetricKernelCount))
	}
}
