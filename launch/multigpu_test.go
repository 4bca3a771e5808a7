package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rooftool/rooftool/launch/plan"
)

func TestLockTiming(t *testing.T) {
	t.Setenv(TimingLockEnv, "")
	unlock, err := lockTiming()
	if err != nil {
		t.Fatal(err)
	}
	unlock() // no lock named: nothing to hold

	t.Setenv(TimingLockEnv, filepath.Join(t.TempDir(), "timing.lock"))
	first, err := lockTiming()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		second, err := lockTiming()
		if err != nil {
			t.Error(err)
		}
		close(got)
		second()
	}()
	select {
	case <-got:
		t.Fatal("a second holder got the timing lock while the first held it")
	case <-time.After(200 * time.Millisecond):
	}
	first()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the timing lock was not handed on after its release")
	}
}

func TestRunMultiGPUConfig(t *testing.T) {
	t.Setenv("FAKE_SMI_GPUS", "2")
	smi, _ := filepath.Abs("testdata/bin/nvidia-smi")
	// An index past the host's GPUs, and an index and a UUID of the same GPU.
	for _, gpus := range [][]string{nil, {"0", "0"}, {"0", ""}, {"0/1"}, {"0", "2"}, {"1", "GPU-00000001-1111-2222-3333-444444444444"}} {
		_, err := RunMultiGPU(context.Background(), MultiGPUConfig{Exe: "/bin/true", SMI: smi, GPUs: gpus, Out: filepath.Join(t.TempDir(), "r")})
		var ce *plan.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("--gpus %q: err %v, want a plan.ConfigError", gpus, err)
		}
	}
	if got := ShardDir("runs/x/", "3"); got != "runs/x.gpu-3" {
		t.Errorf("ShardDir: %s", got)
	}
	env := withoutEnv([]string{"A=1", "CUDA_VISIBLE_DEVICES=2", "B=3"}, "CUDA_VISIBLE_DEVICES")
	if !slices.Equal(env, []string{"A=1", "B=3"}) {
		t.Errorf("withoutEnv: %v", env)
	}
}

// TestRunMultiGPUFailure runs a stand-in binary that fails on one GPU.
func TestRunMultiGPUFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	exe := filepath.Join(t.TempDir(), "fake-rooftool")
	writeExec(t, exe, "#!/bin/sh\necho \"args: $*\"\n[ \"$CUDA_VISIBLE_DEVICES\" = GPU-00000001-1111-2222-3333-444444444444 ] && exit 3\nexit 0\n")
	t.Setenv("FAKE_SMI_GPUS", "2")
	smi, _ := filepath.Abs("testdata/bin/nvidia-smi")
	shards, err := RunMultiGPU(context.Background(), MultiGPUConfig{Exe: exe, SMI: smi, GPUs: []string{"0", "1"}, Out: out, Args: []string{"--gpu", "h100"}})
	if err == nil {
		t.Fatal("a failed shard did not fail the run")
	}
	if len(shards) != 2 || shards[0].Err != nil || shards[1].Err == nil || shards[1].Shard != "2/2" || shards[1].Log != out+".gpu-1.log" {
		t.Errorf("shards: %+v", shards)
	}
}

func writeExec(t *testing.T, path, script string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}
