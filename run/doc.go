// Package run carries a scenario through the pipeline for one design on
// one backend: resolve it into a simulator configuration, run it, check the
// history, and write the run directory (package report); and read a run
// directory back to check it again. It describes a run as history.Setup,
// so that the report needs neither the simulator nor the lock registry.
package run
