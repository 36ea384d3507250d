package sim

import "testing"

func TestFirstDifferenceNamesTheLine(t *testing.T) {
	a := []byte("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n")
	if d := firstDifference(a, a); d != nil {
		t.Fatalf("same bytes: %+v", d)
	}
	d := firstDifference(a, []byte("{\"a\":1}\n{\"b\":9}\n{\"c\":3}\n"))
	if d == nil || d.Line != 2 || d.Want != `{"b":2}` || d.Got != `{"b":9}` {
		t.Fatalf("changed line 2: %+v", d)
	}
	d = firstDifference(a, []byte("{\"a\":1}\n{\"b\":2}\n"))
	if d == nil || d.Line != 3 || d.Want != `{"c":3}` || d.Got != "" {
		t.Fatalf("shorter rerun: %+v", d)
	}
}
