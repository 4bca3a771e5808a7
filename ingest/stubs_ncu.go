package ingest

import "errors"

// Placeholders replaced by the ncu parser (ncu.go).
func parseNCUFile(b *Builder, in Input) error { return errors.New("ncu CSV parser not written yet") }
func parseNCURep(b *Builder, in Input) error  { return errors.New("ncu-rep conversion not written yet") }
