package wait

import (
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubestandup/standup/pkg/crds"
	"github.com/kubestandup/standup/pkg/flux"
	"github.com/kubestandup/standup/pkg/tiers"
)

const rev = "main@sha1:5b1e3f8a6b0b8b3c2f1e0d9c8b7a6f5e4d3c2b1a"

var gitRepo = tiers.ID{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}

func ks(name string, mutate ...func(*flux.Object)) flux.Object {
	o := flux.Object{
		Node:                tiers.Node{ID: tiers.ID{Kind: flux.KindKustomization, Namespace: "flux-system", Name: name}},
		SourceRef:           gitRepo,
		Ready:               &flux.Condition{Status: "True", Reason: "ReconciliationSucceeded", Message: "Applied revision: " + rev},
		LastAppliedRevision: rev,
		Generation:          2,
		ObservedGeneration:  2,
	}
	for _, m := range mutate {
		m(&o)
	}
	return o
}

func ready(status, reason, message string) func(*flux.Object) {
	return func(o *flux.Object) { o.Ready = &flux.Condition{Status: status, Reason: reason, Message: message} }
}

func TestReadyForDependents(t *testing.T) {
	dependent := ks("apps")
	otherSource := ks("apps", func(o *flux.Object) {
		o.SourceRef = tiers.ID{Kind: "OCIRepository", Namespace: "flux-system", Name: "apps"}
	})
	tests := []struct {
		name       string
		dep        flux.Object
		dependent  flux.Object
		revision   string
		want       bool
		wantReason string
	}{
		{name: "ready at the source revision", dep: ks("platform-config"), dependent: dependent, revision: rev, want: true},
		{name: "no conditions", dep: ks("platform-config", func(o *flux.Object) { o.Ready = nil }), dependent: dependent, revision: rev,
			wantReason: "dependency 'flux-system/platform-config' is not ready"},
		{name: "generation not observed", dep: ks("platform-config", func(o *flux.Object) { o.Generation = 3 }), dependent: dependent, revision: rev,
			wantReason: "dependency 'flux-system/platform-config' is not ready"},
		{name: "progressing", dep: ks("platform-config", ready("Unknown", "Progressing", "Reconciliation in progress")), dependent: dependent, revision: rev,
			wantReason: "dependency 'flux-system/platform-config' is not ready"},
		{name: "failed", dep: ks("platform-config", ready("False", "ReconciliationFailed", "StorageProfile/longhorn dry-run failed")), dependent: dependent, revision: rev,
			wantReason: "dependency 'flux-system/platform-config' is not ready"},
		{name: "same source, older revision", dep: ks("platform-config"), dependent: dependent, revision: "main@sha1:0000000000000000000000000000000000000001",
			wantReason: "dependency 'flux-system/platform-config' revision is not up to date"},
		{name: "same source, no artifact", dep: ks("platform-config"), dependent: dependent, revision: "",
			wantReason: "dependency 'flux-system/platform-config' revision is not up to date: source 'GitRepository/flux-system/flux-system' has no artifact"},
		{name: "other source: the revision gate does not apply", dep: ks("platform-config"), dependent: otherSource, revision: "other@sha256:abc", want: true},
		{name: "other source, no artifact", dep: ks("platform-config"), dependent: otherSource, revision: "", want: true},
		{name: "cross-namespace dependency", dep: ks("infra", func(o *flux.Object) { o.ID.Namespace = "infra"; o.Generation = 5 }), dependent: dependent, revision: rev,
			wantReason: "dependency 'infra/infra' is not ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := ReadyForDependents(tt.dep, tt.dependent, tt.revision)
			if got != tt.want || reason != tt.wantReason {
				t.Errorf("ReadyForDependents() = %v, %q; want %v, %q", got, reason, tt.want, tt.wantReason)
			}
		})
	}
}

func TestRequestHandled(t *testing.T) {
	const token = "2026-09-05T08:12:44.123456789Z"
	tests := []struct {
		handled, token string
		want           bool
	}{
		{token, token, true},
		{"2026-09-05T08:00:00Z", token, false},
		{"", token, false},
		{"", "", false},
	}
	for _, tt := range tests {
		obj := ks("apps", func(o *flux.Object) { o.LastHandledReconcileAt = tt.handled })
		if got := RequestHandled(obj, tt.token); got != tt.want {
			t.Errorf("RequestHandled(lastHandled=%q, token=%q) = %v, want %v", tt.handled, tt.token, got, tt.want)
		}
	}
}

func crd(conds map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{}
	for typ, st := range conds {
		c.Status.Conditions = append(c.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{Type: typ, Status: st})
	}
	return c
}

func TestCRDReady(t *testing.T) {
	const (
		est   = apiextensionsv1.Established
		names = apiextensionsv1.NamesAccepted
		yes   = apiextensionsv1.ConditionTrue
		no    = apiextensionsv1.ConditionFalse
	)
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want bool
	}{
		{"nil", nil, false},
		{"no conditions (just created)", crd(nil), false},
		{"both true", crd(map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{est: yes, names: yes}), true},
		{"names accepted, not yet established", crd(map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{est: no, names: yes}), false},
		{"established only (kstatus would say Current)", crd(map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{est: yes}), false},
		{"name conflict", crd(map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{est: yes, names: no}), false},
		{"terminating but served", crd(map[apiextensionsv1.CustomResourceDefinitionConditionType]apiextensionsv1.ConditionStatus{est: yes, names: yes, apiextensionsv1.Terminating: yes}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := crds.Established(tt.crd); got != tt.want {
				t.Errorf("crds.Established() = %v, want %v", got, tt.want)
			}
		})
	}
}

// The messages are the ones kustomize-controller v1.9.6 writes
// (internal/controller/kustomization_controller.go), with fluxcd/pkg/ssa's
// error and wait texts.
func TestClassify(t *testing.T) {
	stalled := func(reason, message string) func(*flux.Object) {
		return func(o *flux.Object) { o.Stalled = &flux.Condition{Status: "True", Reason: reason, Message: message} }
	}
	const celMsg = "Reconciliation failed terminally due to configuration error: failed to parse expression: ERROR: <input>:1:9: Syntax error: missing ')' at '<EOF>'"
	const dryRun = "StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\nNamespace/cdi configured\n"
	tests := []struct {
		name        string
		obj         flux.Object
		want        State
		wantReason  string
		wantMissing int
	}{
		{name: "ready", obj: ks("a"), want: Ready, wantReason: "ReconciliationSucceeded"},
		{name: "ready at an old generation", obj: ks("a", func(o *flux.Object) { o.Generation = 3 }), want: Waiting, wantReason: "Progressing"},
		{name: "suspended wins", obj: ks("a", func(o *flux.Object) { o.Suspended = true }), want: Suspended, wantReason: "Suspended"},
		{name: "never reconciled", obj: ks("a", func(o *flux.Object) { o.Ready = nil }), want: Waiting},
		{name: "reconciliation in progress", obj: ks("a", ready("Unknown", "Progressing", "Reconciliation in progress")), want: Waiting, wantReason: "Progressing"},
		{name: "dependency not ready", obj: ks("a", ready("False", "DependencyNotReady", "dependency 'flux-system/platform-config' is not ready")), want: Waiting, wantReason: "DependencyNotReady"},
		{name: "dependency revision", obj: ks("a", ready("False", "DependencyNotReady", "dependency 'flux-system/platform-config' revision is not up to date")), want: Waiting},
		{name: "dependency not found", obj: ks("a", ready("False", "DependencyNotReady",
			`dependency 'flux-system/platform' not found: kustomizations.kustomize.toolkit.fluxcd.io "platform" not found`)), want: Waiting},
		{name: "health checks canceled", obj: ks("a", ready("False", "HealthCheckCanceled", "New reconciliation triggered by GitRepository/flux-system/flux-system")), want: Waiting},
		{name: "source artifact not found", obj: ks("a", ready("False", "ArtifactFailed", "Source artifact not found, retrying in 30s")), want: Waiting, wantReason: "ArtifactFailed"},
		{name: "source not ready", obj: ks("a", ready("False", "ArtifactFailed", "Source is not ready, artifact not found, retrying in 30s")), want: Waiting},
		{name: "source does not exist yet", obj: ks("a", ready("False", "ArtifactFailed", `gitrepositories.source.toolkit.fluxcd.io "podinfo" not found`)), want: Waiting},
		{name: "bad path fails fast", obj: ks("a", ready("False", "ArtifactFailed",
			"kustomization path not found: stat /tmp/kustomization-1165874013/apps/staging: no such file or directory")), want: HardFailure, wantReason: "ArtifactFailed"},
		{name: "artifact download failed", obj: ks("a", ready("False", "ArtifactFailed",
			`failed to download archive: GET http://source-controller.flux-system.svc.cluster.local./gitrepository/flux-system/flux-system/5b1e3f8a.tar.gz giving up after 10 attempt(s): Get "http://source-controller.flux-system.svc.cluster.local./gitrepository/flux-system/flux-system/5b1e3f8a.tar.gz": dial tcp 10.96.12.7:80: connect: connection refused`)),
			want: TransientFailure},
		{name: "build failed", obj: ks("a", ready("False", "BuildFailed",
			"kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'missing.yaml': open /tmp/kustomization-2937362485/apps/missing.yaml: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '/tmp/kustomization-2937362485/apps/missing.yaml' : lstat /tmp/kustomization-2937362485/apps/missing.yaml: no such file or directory")),
			want: HardFailure, wantReason: "BuildFailed"},
		{name: "health check timeout", obj: ks("a", ready("False", "HealthCheckFailed",
			"health check failed after 5m0.034s: timeout waiting for: [Deployment/apps/podinfo status: 'InProgress']")), want: TransientFailure, wantReason: "HealthCheckFailed"},
		{name: "health check fail-fast", obj: ks("a", ready("False", "HealthCheckFailed",
			"health check failed after 31.2s: failed early due to stalled resources: [Deployment/apps/podinfo status: 'Failed': Progress deadline exceeded]")), want: TransientFailure},
		{name: "apply failed", obj: ks("a", ready("False", "ReconciliationFailed",
			"Deployment/default/podinfo dry-run failed (Invalid): Deployment.apps \"podinfo\" is invalid: spec.template.spec.containers[0].image: Required value\n")), want: TransientFailure, wantReason: "ReconciliationFailed"},
		{name: "prune failed", obj: ks("a", ready("False", "PruneFailed", "ConfigMap/default/old deletion failed: etcdserver: request timed out")), want: TransientFailure},
		{name: "tmp dir", obj: ks("a", ready("False", "DirectoryCreationFailed", "tmp dir error: mkdir /tmp/kustomization-1: no space left on device")), want: TransientFailure},
		{name: "dry-run on a missing kind", obj: ks("a", ready("False", "ReconciliationFailed", dryRun)), want: SuspectedDeadlock, wantReason: "ReconciliationFailed", wantMissing: 1},
		{name: "missing kind, two objects", obj: ks("a", ready("False", "ReconciliationFailed",
			"[StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\", StorageProfile/longhorn-vm dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"]\n")),
			want: SuspectedDeadlock, wantMissing: 2},
		{name: "stalled on CEL", obj: ks("a", ready("False", "InvalidCELExpression", celMsg), stalled("InvalidCELExpression", celMsg)), want: HardFailure, wantReason: "InvalidCELExpression"},
		{name: "CEL without Stalled is still hard", obj: ks("a", ready("False", "InvalidCELExpression", celMsg)), want: HardFailure},
		{name: "access denied", obj: ks("a", ready("False", "AccessDenied", "can't access 'GitRepository/other/repo', cross-namespace references have been blocked"),
			stalled("AccessDenied", "can't access 'GitRepository/other/repo', cross-namespace references have been blocked")), want: HardFailure},
		{name: "feature gate", obj: ks("a", ready("False", "FeatureGateDisabled",
			"to use spec.decryption.serviceAccountName for decryption authentication please enable the ObjectLevelWorkloadIdentity feature gate in the controller")), want: HardFailure},
		{name: "stale Stalled under a later reason", obj: ks("a", ready("Unknown", "Progressing", "Reconciliation in progress"), stalled("InvalidCELExpression", celMsg)), want: Waiting},
		{name: "Stalled without Ready", obj: ks("a", func(o *flux.Object) { o.Ready = nil }, stalled("InvalidCELExpression", celMsg)), want: HardFailure},
		{name: "Stalled=False is not stalled", obj: ks("a", ready("False", "ReconciliationFailed", "x"), func(o *flux.Object) {
			o.Stalled = &flux.Condition{Status: "False", Reason: "ReconciliationFailed"}
		}), want: TransientFailure},
		{name: "unknown reason", obj: ks("a", ready("False", "SomethingNew", "something")), want: TransientFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.obj)
			if got.State != tt.want {
				t.Errorf("Classify().State = %s, want %s (%+v)", got.State, tt.want, got)
			}
			if tt.wantReason != "" && got.Reason != tt.wantReason {
				t.Errorf("Classify().Reason = %q, want %q", got.Reason, tt.wantReason)
			}
			if len(got.Missing) != tt.wantMissing {
				t.Errorf("Classify().Missing = %+v, want %d entries", got.Missing, tt.wantMissing)
			}
			if tt.obj.Ready != nil && got.State != Suspended && tt.obj.Ready.Status != "True" && got.Message == "" {
				t.Errorf("Classify().Message is empty")
			}
		})
	}
}

func TestClassifyDeadlockCarriesTheMissingKind(t *testing.T) {
	obj := ks("platform-config", ready("False", "ReconciliationFailed",
		"StorageProfile/longhorn dry-run failed: no matches for kind \"StorageProfile\" in version \"cdi.kubevirt.io/v1beta1\"\n"))
	want := []crds.MissingKind{{
		Object: crds.ObjectRef{Kind: "StorageProfile", Name: "longhorn"},
		Group:  "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile", GroupKnown: true,
	}}
	if got := Classify(obj).Missing; !reflect.DeepEqual(got, want) {
		t.Errorf("Missing = %+v, want %+v", got, want)
	}
}
