package launch

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rooftool/rooftool/launch/runsummary"

	"github.com/rooftool/rooftool/ingest/rundir"
	"github.com/rooftool/rooftool/launch/compilecache"
	"github.com/rooftool/rooftool/launch/plan"
)

// SharedCacheSuffix names the compile-cache folder of a --gpus run beside
// its run directory (RUNDIR.cache): every shard's runner processes use it.
const SharedCacheSuffix = ".cache"

// SharedWarmConfig is what PrepareSharedWarm needs of a --gpus run: its
// run directory, the --compile-cache to seed from, --no-warm, --python,
// --kernels, --timeout, the planned cells (nil for a --cmd run) and where
// to say what it does.
type SharedWarmConfig struct {
	OutDir       string
	CompileCache string
	NoWarm       bool
	Python       string
	Kernels      string
	Timeout      time.Duration
	Cells        []plan.Cell
	Log          io.Writer
}

// PrepareSharedWarm makes a --gpus run's shared compile-cache folder
// RUNDIR.cache (seeded from CompileCache) and runs the warm stage once for
// the host into it. It returns the flags each shard then gets and the
// warm stage's record (nil where none ran). A bad CompileCache is a
// *plan.ConfigError.
func PrepareSharedWarm(ctx context.Context, c SharedWarmConfig) ([]string, *rundir.Warm, error) {
	// The shards run in this working directory and make the folder absolute
	// themselves: their commands, recorded in the manifests, name it as the
	// user named the run, not by this machine's path.
	shared := strings.TrimRight(c.OutDir, string(filepath.Separator)) + SharedCacheSuffix
	root, err := filepath.Abs(shared)
	if err != nil {
		return nil, nil, err
	}
	if err := compilecache.SetupShared(root, c.CompileCache, "compiled_cache.db"); err != nil {
		return nil, nil, err
	}
	args := []string{"--compile-cache-dir=" + shared, "--no-warm"}
	if c.NoWarm || len(WarmShapes(c.Cells)) == 0 {
		return args, nil, nil
	}
	py := c.Python
	if py == "" {
		py = DefaultPython()
	}
	fmt.Fprintf(c.Log, "warm: compiling for %d shapes into %s\n", len(WarmShapes(c.Cells)), root)
	w := RunWarm(ctx, WarmConfig{Python: py, KernelsDir: FindKernels(c.Kernels).Dir, CacheRoot: root, Shapes: WarmShapes(c.Cells),
		Log: strings.TrimRight(c.OutDir, string(filepath.Separator)) + ".warm.log", Timeout: c.Timeout})
	fmt.Fprintf(c.Log, "warm: %s\n", runsummary.WarmLine(w))
	return args, w, nil
}
