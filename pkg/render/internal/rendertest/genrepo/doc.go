// Command genrepo writes one of rendertest's generated repositories into a
// directory, for scripts/bench-render.sh, so that the script's cases and
// the in-process benchmarks of pkg/render build the same files:
//
//	go run ./pkg/render/internal/rendertest/genrepo scale 2000 DIR
//	go run ./pkg/render/internal/rendertest/genrepo replacements 160 DIR
//
// scale is rendertest.ScaleFiles, replacements rendertest.ReplacementsFiles;
// either's cluster path is DIR/clusters/c.
package main
