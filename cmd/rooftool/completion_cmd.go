package main

import (
	_ "embed"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// `rooftool completion SHELL` prints the completion script of a shell. It
// replaces cobra's default command, whose help tells users to write into
// /etc first, and whose bash script needs the bash-completion package: here
// bash gets cobra's V2 script (GenBashCompletionV2) with the two functions
// of that package it calls (completion_bash.sh), so it completes in a bare
// `bash --norc` too.

// completionBashExtra defines __rooftool_init_completion and
// __rooftool_filedir after cobra's V2 script.
//
//go:embed completion_bash.sh
var completionBashExtra string

// filedirCall is each call of bash-completion's _filedir in cobra's script.
var filedirCall = regexp.MustCompile(`\b_filedir\b`)

// completionShell is one shell of `rooftool completion`.
type completionShell struct {
	name    string
	install string // the per-user set-up of the help text
	now     string // the line that loads it into the current shell
	script  func(root *cobra.Command, w io.Writer, desc bool) error
}

var completionShells = []completionShell{
	{"bash", `  mkdir -p ~/.local/share/bash-completion/completions
  rooftool completion bash > ~/.local/share/bash-completion/completions/rooftool
bash-completion (where installed) loads it on demand; without that package add
  source ~/.local/share/bash-completion/completions/rooftool
to ~/.bashrc. The script needs nothing else installed.`, "source <(rooftool completion bash)", bashScript},
	{"zsh", `  mkdir -p ~/.local/share/zsh/site-functions
  rooftool completion zsh > ~/.local/share/zsh/site-functions/_rooftool
and in ~/.zshrc, before compinit:
  fpath=(~/.local/share/zsh/site-functions $fpath); autoload -U compinit; compinit`,
		"source <(rooftool completion zsh)",
		func(root *cobra.Command, w io.Writer, desc bool) error {
			if desc {
				return root.GenZshCompletion(w)
			}
			return root.GenZshCompletionNoDesc(w)
		}},
	{"fish", `  mkdir -p ~/.config/fish/completions
  rooftool completion fish > ~/.config/fish/completions/rooftool.fish
(fish loads it by itself).`,
		"rooftool completion fish | source",
		func(root *cobra.Command, w io.Writer, desc bool) error { return root.GenFishCompletion(w, desc) }},
	{"powershell", `  rooftool completion powershell >> $PROFILE`,
		"rooftool completion powershell | Out-String | Invoke-Expression",
		func(root *cobra.Command, w io.Writer, desc bool) error {
			if desc {
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return root.GenPowerShellCompletion(w)
		}},
}

// bashScript writes cobra's V2 script with its bash-completion calls
// routed through completion_bash.sh.
func bashScript(root *cobra.Command, w io.Writer, desc bool) error {
	var b strings.Builder
	if err := root.GenBashCompletionV2(&b, desc); err != nil {
		return err
	}
	s := filedirCall.ReplaceAllString(b.String(), "__rooftool_filedir")
	_, err := io.WriteString(w, s+completionBashExtra)
	return err
}

// CompletionOptions are the flags of `rooftool completion SHELL`.
type CompletionOptions struct {
	IO     *IO
	NoDesc bool
}

func newCompletionCmd(io *IO) *cobra.Command {
	var names []string
	for _, s := range completionShells {
		names = append(names, s.name)
	}
	c := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print the shell completion script of " + strings.Join(names, ", "),
		Long: `Prints the completion script of rooftool for a shell. It completes flags, GPUs,
experiments, variants and runs. make install puts the bash, zsh and fish scripts
into your own folders (no root); ` + "`rooftool completion SHELL --help`" + ` says where
each goes. For the current shell only:
  source <(rooftool completion bash)`,
		RunE: func(*cobra.Command, []string) error {
			return usageErrorf("completion: name a shell: %s", strings.Join(names, ", "))
		},
	}
	for _, s := range completionShells {
		opts := &CompletionOptions{IO: io}
		sub := &cobra.Command{
			Use:                   s.name,
			Short:                 "Print the " + s.name + " completion script",
			Long:                  fmt.Sprintf("Prints the %s completion script of rooftool. For every new shell, per user (no root):\n%s\nFor the current shell only:\n  %s", s.name, s.install, s.now),
			Args:                  cobra.NoArgs,
			DisableFlagsInUseLine: true,
			ValidArgsFunction:     cobra.NoFileCompletions,
			RunE: func(c *cobra.Command, _ []string) error {
				return s.script(c.Root(), opts.IO.Out, !opts.NoDesc)
			},
		}
		sub.Flags().BoolVar(&opts.NoDesc, "no-descriptions", false, "candidates without their descriptions")
		c.AddCommand(sub)
	}
	return c
}
