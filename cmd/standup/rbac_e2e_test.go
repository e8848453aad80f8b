package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kubestandup/standup/internal/testenv"
	"github.com/kubestandup/standup/pkg/catalog"
	"github.com/kubestandup/standup/pkg/crds"
)

const rbacFile = "../../docs/rbac.yaml"

// rbacRoles reads the ClusterRoles standup ships in docs/rbac.yaml, and
// the text of each role's document (its comments name its commands).
func rbacRoles(t *testing.T) (map[string]*rbacv1.ClusterRole, map[string]string) {
	t.Helper()
	return rbacRolesIn(t, rbacFile)
}

// rbacRolesIn reads the ClusterRoles of file, and each one's document.
func rbacRolesIn(t *testing.T, file string) (map[string]*rbacv1.ClusterRole, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	roles, docs := map[string]*rbacv1.ClusterRole{}, map[string]string{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var probe map[string]any
		if err := yaml.Unmarshal(doc, &probe); err != nil || probe == nil {
			continue // comments only
		}
		role := &rbacv1.ClusterRole{}
		if err := yaml.UnmarshalStrict(doc, role); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		roles[role.Name], docs[role.Name] = role, string(doc)
	}
	return roles, docs
}

// grant is one verb on one resource, named as RBAC errors name it
// (plural.group, or plural for the core group).
type grant struct{ verb, resource string }

func (g grant) String() string { return g.verb + " " + g.resource }

// group and plural split the resource at its first dot.
func (g grant) group() string  { _, grp, _ := strings.Cut(g.resource, "."); return grp }
func (g grant) plural() string { p, _, _ := strings.Cut(g.resource, "."); return p }

// grants expands a role's rules into single grants.
func grants(role *rbacv1.ClusterRole) []grant {
	var out []grant
	for _, r := range role.Rules {
		for _, grp := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					name := res
					if grp != "" {
						name += "." + grp
					}
					out = append(out, grant{v, name})
				}
			}
		}
	}
	return out
}

// without copies role, naming it after the grant, with g removed (and a
// rule left without verbs dropped).
func without(role *rbacv1.ClusterRole, g grant) *rbacv1.ClusterRole {
	out := &rbacv1.ClusterRole{}
	out.Name = fmt.Sprintf("%s-without-%s-%s", role.Name, g.verb, g.resource)
	for _, r := range role.Rules {
		if !slices.Contains(r.APIGroups, g.group()) || !slices.Contains(r.Resources, g.plural()) {
			out.Rules = append(out.Rules, r)
			continue
		}
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == g.plural() }); len(others) > 0 {
			rest := *r.DeepCopy()
			rest.Resources = others
			out.Rules = append(out.Rules, rest)
		}
		if verbs := slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == g.verb }); len(verbs) > 0 {
			out.Rules = append(out.Rules, rbacv1.PolicyRule{APIGroups: []string{g.group()}, Resources: []string{g.plural()}, Verbs: verbs})
		}
	}
	return out
}

const (
	ksResource     = "kustomizations.kustomize.toolkit.fluxcd.io"
	crdResource    = "customresourcedefinitions.apiextensions.k8s.io"
	gitResource    = "gitrepositories.source.toolkit.fluxcd.io"
	ociResource    = "ocirepositories.source.toolkit.fluxcd.io"
	bucketResource = "buckets.source.toolkit.fluxcd.io"
	hrResource     = "helmreleases.helm.toolkit.fluxcd.io"
	deployResource = "deployments.apps"
)

// rbacCommand is one documented command, the role docs/rbac.yaml names
// for it, and every grant it uses.
type rbacCommand struct {
	role string
	// doc is how the role's comment lists the command.
	doc  string
	args []string
	// needs are the grants the command uses: with any one removed it must
	// stop, naming the verb and the resource.
	needs []grant
	// inReport: check reports a refused read as a failed check on stdout.
	inReport bool
	// before prepares the cluster for the successful run; ok checks it.
	before func(t *testing.T)
	ok     func(t *testing.T, res cliResult)
}

// watched is what a walk watches: Kustomizations, CRDs, and the sources
// of the RBAC world's Kustomizations (GitRepository, OCIRepository, Bucket).
var watched = []grant{{"list", ksResource}, {"watch", ksResource}, {"watch", crdResource}, {"watch", gitResource}, {"watch", ociResource}, {"watch", bucketResource}}

// eventGrants are the grants of standup's Events: a walk posts them
// under standup-operator, and without them goes on with one warning
// (TestEventsForbiddenWarnsOnce), so no command stops for their lack.
var eventGrants = []grant{{"create", "events.events.k8s.io"}, {"patch", "events.events.k8s.io"}}

// hubCommand is what standup-hub grants, beside standup-operator: resume
// on a hub reads each walked node's kubeConfig Secret by name
// (connectSpoke), and nothing else.
var hubCommand = struct {
	doc   string
	needs []grant
}{doc: "standup resume (hub and spoke)", needs: []grant{{"get", "secrets"}}}

// rsetResource is the Flux Operator's ResourceSet, as RBAC names it.
const rsetResource = "resourcesets.fluxcd.controlplane.io"

// rsetCommands are the commands that read or walk the Flux Operator's
// ResourceSets (--kinds rset), and the grants on ResourceSets and CRDs
// they use. The RBAC world serves no ResourceSet API, so
// TestResumeWalksResourceSets proves them on a world of the real
// operator: resume runs there under standup-operator, tiers under
// standup-viewer, both as docs/rbac.yaml writes them, and each stops,
// naming the verb, with any one of its grants removed.
var rsetCommands = []rbacCommand{
	{role: "standup-operator", doc: "standup resume --kinds rset", args: []string{"resume", "--kinds", "rset"},
		needs: []grant{{"list", rsetResource}, {"watch", rsetResource}, {"patch", rsetResource}, {"watch", crdResource}}},
	{role: "standup-viewer", doc: "standup tiers --kinds ks,rset", args: []string{"tiers", "--kinds", "ks,rset"},
		needs: []grant{{"list", ksResource}, {"list", rsetResource}}},
}

// informerOnly are grants a role holds that this API server cannot prove:
// it serves streaming watch-lists, so an informer needs only "watch", and
// "list" on sources stays for API servers without them. (standup lists
// Kustomizations and CRDs itself, so "list" on those is proven.)
var informerOnly = map[string][]grant{
	"standup-operator": {{"list", gitResource}, {"list", ociResource}, {"list", bucketResource}},
}

// triggerLists are the grants of the fast proof of a deadlock and of the
// wait for an operator: list on the trigger kind of every runtime set of
// the built-in catalog (a walk lists one to tell whether an operator could
// still create a missing CRD, and its objects to see the operator's
// progress), and list on Deployments when an entry names its operator's
// (its rollout is progress too). standup-operator holds exactly these
// besides what its commands need; without one, the walk waits out the
// quiet window instead of stopping (TestDeadlockProofWaitsWhenForbidden).
func triggerLists(t *testing.T) []grant {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out []grant
	for _, e := range cat.Entries {
		for _, r := range e.Runtime {
			plural, _ := apimeta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: r.Trigger.Group, Kind: r.Trigger.Kind})
			if g := (grant{"list", plural.Resource + "." + r.Trigger.Group}); !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
		if g := (grant{"list", "deployments.apps"}); e.Operator != nil && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// rbacCommands is every command of the CLI that talks to a cluster, in the
// order the test runs them successfully: repairs first, then the reads on
// the converged cluster. w is nil, and sc empty, for the pure test.
func rbacCommands(w *testenv.World, sc rbacScene, bundle, capture string) []rbacCommand {
	expectOut := func(wants ...string) func(t *testing.T, res cliResult) {
		return func(t *testing.T, res cliResult) {
			for _, want := range wants {
				if !strings.Contains(res.Stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.Stdout)
				}
			}
		}
	}
	var names []string
	for _, k := range sc.all {
		names = append(names, k.Namespace+"/"+k.Name)
	}
	infra := sc.g.infra
	// Sprocket's origin is unknown, so a walk cannot be certain of its
	// deadlock and waits for an operator first: --operator-quiet shortens
	// that wait, so that a refusal at the pre-apply comes in seconds.
	return []rbacCommand{
		{role: "standup-operator", doc: "standup crds --dry-run", args: []string{"crds", "--dry-run", "--crds", bundle},
			needs: []grant{{"list", ksResource}, {"list", crdResource}},
			ok:    expectOut("will create CustomResourceDefinition/"+sprocketsCRD, "dry run: nothing changed")},
		{role: "standup-operator", doc: "standup crds [--crds DIR]", args: []string{"crds", "--crds", bundle, "--operator-quiet", "2s"},
			needs: append(slices.Clone(watched), grant{"patch", ksResource}, grant{"list", crdResource}, grant{"create", crdResource}),
			ok: func(t *testing.T, res cliResult) {
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := w.Client.Get(context.Background(), client.ObjectKey{Name: sprocketsCRD}, crd); err != nil {
					t.Fatal(err)
				}
				if got, want := crd.Annotations[crds.PreAppliedForAnnotation], "Kustomization/"+sc.stuck+"/"+stuckName; got != want {
					t.Errorf("%s pre-applied for %q, want %q", sprocketsCRD, got, want)
				}
			}},
		{role: "standup-operator", doc: "standup crds --all", args: []string{"crds", "--all", "--crds", bundle},
			needs: []grant{{"list", ksResource}, {"list", crdResource}, {"create", crdResource}},
			ok:    expectOut("CustomResourceDefinition/"+gearsCRD+" created", "CustomResourceDefinition/"+sprocketsCRD+" exists: left alone")},
		{role: "standup-operator", doc: "standup resume [--crds DIR]", args: []string{"resume", "--crds", bundle, "--operator-quiet", "2s", "-o", "json"},
			needs:  append(slices.Clone(watched), grant{"patch", ksResource}, grant{"list", crdResource}, grant{"create", crdResource}),
			before: func(t *testing.T) { suspendGraph(t, w, sc.stuck) },
			ok: func(t *testing.T, res cliResult) {
				assertConverged(t, w, sc.all, events(t, res.Stdout))
				assertCounted(t, res, true)
			}},
		// -n narrows the walk, not what it reads: the stuck namespace's one
		// node builds from a GitRepository of its own, and the walk still
		// watches every namespace's Kustomizations and sources (the
		// OCIRepository and Bucket of infra). Its deadlock keeps the walk
		// going until a refusal stops it; on the graph the walk above
		// converged, the node is ready and nothing is written.
		{role: "standup-operator", doc: "standup resume -n NAMESPACE", args: []string{"resume", "-n", sc.stuck, "--crds", bundle, "--operator-quiet", "2s", "-o", "json"},
			needs: append(slices.Clone(watched), grant{"patch", ksResource}, grant{"list", crdResource}, grant{"create", crdResource}),
			ok: func(t *testing.T, res cliResult) {
				if s := summaryOf(t, events(t, res.Stdout)); s.Total != 1 || s.Ready != 1 {
					t.Errorf("summary %+v, want %s/%s ready, alone", s, sc.stuck, stuckName)
				}
			}},
		{role: "standup-operator", doc: "standup resume --dry-run", args: []string{"resume", "--dry-run"},
			needs: []grant{{"list", ksResource}, {"get", gitResource}, {"get", ociResource}, {"get", bucketResource}},
			ok:    expectOut(infra+"/from-oci", infra+"/from-bucket")},
		{role: "standup-viewer", doc: "standup tiers ", args: []string{"tiers"},
			needs: []grant{{"list", ksResource}}, ok: expectOut(names...)},
		{role: "standup-viewer", doc: "standup tiers -n NAMESPACE", args: []string{"tiers", "-n", sc.g.apps},
			needs: []grant{{"list", ksResource}}, ok: expectOut(sc.g.apps+"/web", infra+"/join(outside)")},
		{role: "standup-viewer", doc: "standup tiers --kinds Kustomization,HelmRelease", args: []string{"tiers", "--kinds", "Kustomization,HelmRelease"},
			needs: []grant{{"list", ksResource}, {"list", hrResource}}, ok: expectOut(append(names, sc.g.apps+"/podinfo")...)},
		{role: "standup-viewer", doc: "standup audit --from-cluster --path DIR", args: []string{"audit", "--from-cluster", "--path", homelabRepo + "/clusters/prod"},
			needs: []grant{{"list", crdResource}, {"list", ksResource}}},
		{role: "standup-viewer", doc: "standup check [--ready NAME]", args: []string{"check", "--ready", infra + "/base", "--ready", infra + "/from-oci", "--ready", infra + "/from-bucket"},
			needs:    []grant{{"list", crdResource}, {"list", deployResource}, {"list", ksResource}, {"list", hrResource}, {"get", gitResource}, {"get", ociResource}, {"get", bucketResource}},
			inReport: true, ok: expectOut("all checks passed")},
		{role: "standup-viewer", doc: "standup crds capture --out DIR", args: []string{"crds", "capture", "--out", capture},
			needs: []grant{{"list", ksResource}, {"list", crdResource}},
			ok: func(t *testing.T, res cliResult) {
				if !capturedFile(capture, sprocketsCRD) {
					t.Errorf("crds capture wrote no %s.yaml into %s:\n%s", sprocketsCRD, capture, res.Stdout)
				}
			}},
	}
}

// TestRBACRolesHoldExactlyWhatCommandsUse is the least-privilege rule, on
// paper: each role in docs/rbac.yaml lists its commands, and holds exactly
// the grants they use (plus informerOnly, and the operator the catalog's
// triggerLists), nothing more.
func TestRBACRolesHoldExactlyWhatCommandsUse(t *testing.T) {
	roles, docs := rbacRoles(t)
	used := map[string][]grant{}
	for _, c := range append(rbacCommands(nil, rbacScene{}, "B", "C"), rsetCommands...) {
		if roles[c.role] == nil {
			t.Fatalf("%s: docs/rbac.yaml has no role %s", c.doc, c.role)
		}
		if !strings.Contains(docs[c.role], "#   "+c.doc) {
			t.Errorf("the comment of %s does not list %q", c.role, c.doc)
		}
		used[c.role] = append(used[c.role], c.needs...)
	}
	used["standup-operator"] = append(used["standup-operator"], triggerLists(t)...)
	used["standup-operator"] = append(used["standup-operator"], eventGrants...)
	if !strings.Contains(docs["standup-hub"], "#   "+hubCommand.doc) {
		t.Errorf("the comment of standup-hub does not list %q", hubCommand.doc)
	}
	used["standup-hub"] = append(used["standup-hub"], hubCommand.needs...)
	for name, role := range roles {
		want := append(used[name], informerOnly[name]...)
		held := grants(role)
		for _, g := range held {
			if !slices.Contains(want, g) {
				t.Errorf("%s grants %s, which none of its commands uses", name, g)
			}
		}
		for _, g := range want {
			if !slices.Contains(held, g) {
				t.Errorf("%s lacks %s, which its commands use", name, g)
			}
		}
	}
}

// userBoundTo creates role (unless it exists), a user bound to it, and
// returns the user's kubeconfig.
func userBoundTo(t *testing.T, w *testenv.World, role *rbacv1.ClusterRole) string {
	t.Helper()
	return userBoundToAll(t, w, "user-"+role.Name, role)
}

// userBoundToAll creates roles (unless they exist) and the user bound to
// every one of them, and returns the user's kubeconfig.
func userBoundToAll(t *testing.T, w *testenv.World, user string, roles ...*rbacv1.ClusterRole) string {
	t.Helper()
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := rbacv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(w.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range roles {
		if err := c.Create(ctx, role.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		binding := &rbacv1.ClusterRoleBinding{
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		binding.Name = user + "-" + role.Name
		if err := c.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	authn, err := w.Env.AddUser(envtest.User{Name: user}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := authn.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRBACLeastPrivilegeRoles proves docs/rbac.yaml on one world: every
// command succeeds under the role the docs name for it, and stops with any
// one of its grants removed, naming the verb and the resource.
func TestRBACLeastPrivilegeRoles(t *testing.T) {
	w, g := suspendedGraph(t)
	sc := rbacWorld(t, w, g)
	wit := witnessFrom(t, w)
	roles, _ := rbacRoles(t)
	capture := filepath.Join(t.TempDir(), "capture")
	commands := rbacCommands(w, sc, rbacBundle(t), capture)

	refusals := func(roleName string) {
		for _, c := range commands {
			for _, g := range c.needs {
				if c.role != roleName {
					continue
				}
				role := without(roles[c.role], g)
				t.Run("refused/"+c.role+"/"+strings.Join(c.args[:min(2, len(c.args))], " ")+"/"+g.String(), func(t *testing.T) {
					if c.role == "standup-operator" {
						suspendGraph(t, w, sc.stuck) // a walk starts on the suspended graph
						// and on the deadlock at rest: the reconcile the run
						// before asked for may still be running, and crds
						// would then find nothing stuck and exit 0.
						waitStuck(t, w, sc.stuck)
					}
					assertRefused(t, userBoundTo(t, w, role), c, g)
				})
			}
		}
	}
	// The operator's refusals first, while the stuck needs-sprockets is
	// deadlocked, so that crds and resume reach its repair; the viewer's
	// last, on the converged cluster, where check reads every source of a
	// Ready Kustomization.
	refusals("standup-operator")
	kubeconfigs := map[string]string{}
	for name, role := range roles {
		kubeconfigs[name] = userBoundTo(t, w, role)
	}
	for _, c := range commands {
		t.Run(c.role+"/"+strings.TrimSpace(c.doc), func(t *testing.T) {
			if c.before != nil {
				c.before(t)
			}
			res := runWith(context.Background(), t, runSpec{kubeconfig: kubeconfigs[c.role]}, append(c.args, "-v")...)
			if res.Code != ExitOK {
				t.Fatalf("exit %d: %v\nstdout:\n%s", res.Code, res.Err, tailLines(res.Stdout, 40))
			}
			if c.ok != nil {
				c.ok(t, res)
			}
			if counts, ok := apiRequests(res.Stderr); ok {
				if bad := countedViolations(counts, c.role == "standup-operator"); len(bad) > 0 {
					t.Errorf("counter shows %v", bad)
				}
			}
		})
	}
	refusals("standup-viewer")
	wit.assertNothingLost(t)
}

// assertRefused runs c under kubeconfig, which lacks g, and checks it
// stops at once, naming g.
func assertRefused(t *testing.T, kubeconfig string, c rbacCommand, g grant) {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := runWith(ctx, t, runSpec{kubeconfig: kubeconfig}, append(c.args, "-v")...)
	took := time.Since(start)
	if res.Code == ExitOK || res.Code == ExitInterrupted || res.Code == ExitTimeout {
		t.Fatalf("exit %d after %s: want a refusal", res.Code, took.Round(time.Millisecond))
	}
	said := errorLine(t, res.Stderr)
	if c.inReport {
		said += "\n" + res.Stdout
	}
	// The report wraps its lines to the terminal, where names fall.
	said = strings.Join(strings.Fields(said), " ")
	if want := fmt.Sprintf("forbidden: standup needs %q on %s", g.verb, g.resource); !strings.Contains(said, want) {
		t.Errorf("error %q does not say %q", said, want)
	}
	if took > 30*time.Second {
		t.Errorf("took %s to report the refusal", took)
	}
	if counts, ok := apiRequests(res.Stderr); ok {
		if bad := countedViolations(counts, true); len(bad) > 0 {
			t.Errorf("counter shows %v", bad)
		}
	}
}
