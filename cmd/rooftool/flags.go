package main

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rooftool/rooftool/launch"
)

// renamedFlag keeps old, the former name of c's flag name, working for one
// release: a hidden flag that sets the same value and, when given, says on
// w "Flag --old has been deprecated, use --name". Giving both is a usage
// error.
func renamedFlag(c *cobra.Command, w io.Writer, old, name string) {
	f := c.Flags()
	nf := f.Lookup(name)
	f.AddFlag(&pflag.Flag{Name: old, Usage: nf.Usage, Value: nf.Value, DefValue: nf.DefValue})
	if err := f.MarkDeprecated(old, "use --"+name); err != nil {
		panic("rooftool " + c.Name() + ": " + err.Error())
	}
	f.SetOutput(w)
	if fn, ok := c.GetFlagCompletionFunc(name); ok {
		mustRegisterCompletion(c, old, fn)
	}
	prev := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed(old) && c.Flags().Changed(name) {
			return usageErrorf("%s: --%s is the old name of --%s: give one of them", c.Name(), old, name)
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// kernelsFlagHelp is the help of --kernels (profile, plan, doctor), whose
// default launch.FindKernels resolves.
const kernelsFlagHelp = "folder with run.py and the experiments (default: $" + launch.KernelsEnv +
	", else the kernels/ of the rooftool clone holding the working directory, else those installed with rooftool)"
