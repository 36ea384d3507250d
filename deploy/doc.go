// Package deploy holds no code: its tests check the deployable artefacts
// of a sharded campaign (docs/scale.md) that no cluster or CI run checks
// here: the GitHub Actions workflow (.github/workflows/explore.yml),
// linted with actionlint's library.
package deploy
