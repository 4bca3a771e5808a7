package main

import (
	"embed"
	"strings"
)

// helpFiles hold the Long help of the commands whose help is many lines of
// prose, one file a command (help/<command>.txt).
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText is the Long help of command: help/<command>.txt without its
// final newline, each {{name}} of fill (pairs of "{{name}}", text) given
// its text. A file that is not there is a bug of the build: it panics
// (every command is built by the tests).
func helpText(command string, fill ...string) string {
	b, err := helpFiles.ReadFile("help/" + command + ".txt")
	if err != nil {
		panic("rooftool " + command + ": help: " + err.Error())
	}
	return strings.NewReplacer(fill...).Replace(strings.TrimSuffix(string(b), "\n"))
}
