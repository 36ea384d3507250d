// Package recorder collects a run's history in true time: every operation
// the clients, the faults, the observer and Sentinel's watcher record is
// stamped against one origin and appended under a lock.
//
// It imports only package history and the standard library; package sim
// and the packages beside it import it.
package recorder
