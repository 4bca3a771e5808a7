package launch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rooftool/rooftool/spec"
)

// ExperimentDirsEnv is the runner's variable for experiment folders outside
// its kernels folder (kernels/common/spec.py): os.PathListSeparator-separated
// paths, each an experiment folder or a folder of them.
const ExperimentDirsEnv = "ROOFTOOL_EXPERIMENT_DIRS"

// LoadExternal reads the experiments of the --experiments folders. Each dir
// is an experiment folder (it holds spec.yaml) or a folder of experiment
// folders. It returns them with each experiment's absolute folder. A missing
// folder, one without a spec.yaml, an invalid spec or claims file, a missing
// variants.py and a name given twice are a plan.ConfigError naming the file.
func LoadExternal(dirs []string) ([]*spec.Experiment, map[string]string, error) {
	var out []*spec.Experiment
	where := map[string]string{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, nil, configErrorf("--experiments %s: %w", d, err)
		}
		st, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, configErrorf("--experiments %s: no such folder", d)
		case err != nil:
			return nil, nil, configErrorf("--experiments %s: %w", d, err)
		case !st.IsDir():
			return nil, nil, configErrorf("--experiments %s: not a folder (want an experiment folder with spec.yaml, or a folder of them)", d)
		}
		var found []string
		if _, err := os.Stat(filepath.Join(abs, "spec.yaml")); err == nil {
			found = []string{abs}
		} else {
			ms, _ := filepath.Glob(filepath.Join(abs, "*", "spec.yaml"))
			for _, m := range ms {
				found = append(found, filepath.Dir(m))
			}
			if len(found) == 0 {
				return nil, nil, configErrorf("--experiments %s: %s: no such file, nor a spec.yaml in a folder under it (rooftool new NAME scaffolds one)", d, filepath.Join(d, "spec.yaml"))
			}
		}
		sort.Strings(found)
		for _, f := range found {
			e, err := spec.LoadDir(f)
			if err != nil {
				return nil, nil, configErrorf("--experiments %s: %w", d, err)
			}
			if !hasVariantsModule(f) {
				return nil, nil, configErrorf("--experiments %s: %s: no such file (nor variants/__init__.py): the runner imports the variants from it", d, filepath.Join(f, "variants.py"))
			}
			if prev, ok := where[e.Name]; ok && prev != f {
				return nil, nil, configErrorf("--experiments: experiment %q twice: %s and %s", e.Name, prev, f)
			}
			if _, ok := where[e.Name]; !ok {
				where[e.Name] = f
				out = append(out, e)
			}
		}
	}
	return out, where, nil
}

func hasVariantsModule(dir string) bool {
	for _, p := range []string{"variants.py", filepath.Join("variants", "__init__.py")} {
		if st, err := os.Stat(filepath.Join(dir, p)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}

// externalEnv is ROOFTOOL_EXPERIMENT_DIRS=<folders> for the runner, or nil.
func externalEnv(where map[string]string) []string {
	if len(where) == 0 {
		return nil
	}
	var ds []string
	for _, d := range where {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	return []string{ExperimentDirsEnv + "=" + strings.Join(ds, string(os.PathListSeparator))}
}
