package coldstart

import "github.com/kubestandup/standup/internal/printer"

// Commands returns the registry of the commands this package prints for,
// each list taken from the printers that write it: audit, and audit
// --from-cluster and audit --fix, which print other documents, and
// rehearse. cmd/standup joins it with printer.Commands.
func Commands() printer.Registry {
	return printer.Registry{
		"audit":                {Names: AuditFormats()},
		"audit --from-cluster": {Names: SkeletonFormats()},
		"audit --fix":          {Names: FixFormats()},
		"rehearse":             {Names: RehearseFormats()},
	}
}
