// Package vocab is the leaf every package imports for the words a run, a
// scenario file and verdict.json share: fault kinds and what each kind
// does (Kind, KindInfo), check names, verdict words and points. It imports
// nothing from the module, so that the checker, the report, the loader
// and the simulator can all name these words without importing each
// other, and no package spells another's words as string literals
// (TestNoVocabularyLiterals checks it).
package vocab
