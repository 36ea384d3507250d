package vocab

// Check names, as verdict.json, expectations and reports name the checks.
const (
	CheckExclusion = "exclusion"
	CheckClaim     = "claim"
	CheckFencing   = "fencing"
	CheckLiveness  = "liveness"
)

// Checks are the check names in the order the checker runs them and
// reports list them.
func Checks() []string {
	return []string{CheckExclusion, CheckClaim, CheckFencing, CheckLiveness}
}
