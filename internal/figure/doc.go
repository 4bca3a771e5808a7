// Package figure formats the figures rooftool prints, one way for every
// place that prints them: the reasons package verdict writes into its
// decisions, the report package reports renders, the tables of package
// diff. It gives SI values (SI, Bytes, FLOPs, Ms, Seconds with an
// interval), ratios, percentages, p-values, plain numbers and counted
// nouns, and cuts names and lines to fit. Output is fixed in its digits,
// so that goldens stay byte-stable.
//
// It is a leaf: it imports no package of the module, so every layer may
// use it.
package figure
