package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubestandup/standup/internal/testenv"
)

// target is what a contender brings up: the Kustomizations of namespace ns
// ("" for the whole world), want of them in the end.
type target struct {
	w    *testenv.World
	ns   string
	want int
	cap  time.Duration
	// checkout, when set, is the repository root standup reads with
	// --path checkoutPath and --repo-root.
	checkout, checkoutPath string
}

// outcome is a contender's measurement plus what its process printed.
type outcome struct {
	Measurement
	stdout, stderr string
	exitErr        error
	usage          *StandupUsage
}

// fluxAlone resumes every Kustomization of the target at once, as
// `flux resume` on all of them would, and lets kustomize-controller do the
// rest on its own flags.
func fluxAlone(ctx context.Context, t target) (outcome, error) {
	list := &kustomizev1.KustomizationList{}
	if err := t.w.Client.List(ctx, list, client.InNamespace(t.ns)); err != nil {
		return outcome{}, fmt.Errorf("Kustomizations in %q: %w", t.ns, err)
	}
	start := time.Now()
	unsuspend := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":false}}`))
	for i := range list.Items {
		k := &list.Items[i]
		if err := t.w.Client.Patch(ctx, k, unsuspend); err != nil {
			return outcome{}, fmt.Errorf("Kustomization/%s/%s unsuspend failed: %w", k.Namespace, k.Name, err)
		}
	}
	m, err := waitAllReady(ctx, t.w, t.ns, t.want, start, t.cap)
	return outcome{Measurement: m}, err
}

// tierScript runs scripts/tier-walk.sh over the TIER_ORDER file order,
// after the commands in pre (each a standup argument list, e.g. the
// blanket `crds --all` pre-apply), all inside the clock and the cap.
func tierScript(ctx context.Context, env benchEnv, t target, order string, pre ...[]string) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cap)
	defer cancel()
	start := time.Now()
	var out outcome
	for _, args := range pre {
		p := process(ctx, t.w, env.standup, append([]string{"--kubeconfig", t.w.Kubeconfig}, args...)...)
		if err := p.run(); err != nil {
			out.stderr += p.stderr.String()
			out.exitErr = fmt.Errorf("standup %s: %w", strings.Join(args, " "), err)
			return finish(ctx, t, start, out)
		}
	}
	args := []string{env.script, "-t", t.cap.String()}
	if t.ns != "" {
		args = append(args, "-n", t.ns)
	}
	p := process(ctx, t.w, "bash", append(args, order)...)
	out.exitErr = p.run()
	out.stdout, out.stderr = p.stdout.String(), out.stderr+p.stderr.String()
	return finish(ctx, t, start, out)
}

// finish counts what is Ready once a process contender has ended: it
// converged only if it exited cleanly with everything Ready.
func finish(ctx context.Context, t target, start time.Time, out outcome) (outcome, error) {
	elapsed := time.Since(start)
	ready, total, err := readiness(context.WithoutCancel(ctx), t.w, t.ns)
	if err != nil {
		return out, err
	}
	out.Measurement = Measurement{Elapsed: min(elapsed, t.cap), Ready: ready, Total: max(total, t.want)}
	out.Converged = out.exitErr == nil && ready >= t.want
	return out, nil
}

// standupResume runs `standup resume -o json -v` with extra arguments and
// reads its summary, its request counts and its peak RSS.
func standupResume(ctx context.Context, env benchEnv, t target, extra ...string) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, t.cap)
	defer cancel()
	args := []string{"--kubeconfig", t.w.Kubeconfig, "-o", "json", "-v", "--timeout", t.cap.String()}
	if t.ns != "" {
		args = append(args, "-n", t.ns)
	}
	p := process(ctx, t.w, env.standup, append(append(args, "resume"), extra...)...)
	start := time.Now()
	runErr := p.run()
	out, err := finish(ctx, t, start, outcome{stdout: p.stdout.String(), stderr: p.stderr.String(), exitErr: runErr})
	if err != nil {
		return out, err
	}
	usage := StandupUsage{MaxRSS: p.maxRSS(), Kustomizations: out.Total}
	if usage.Requests, err = ParseRequests(out.stderr); err != nil {
		return out, err
	}
	events, err := ReadEvents(out.stdout)
	if err != nil {
		return out, err
	}
	summary, err := SummaryOf(events)
	if err != nil {
		return out, err
	}
	usage.Mutations, usage.WritesPerNode, usage.PatchesPerNode = summary.Mutations, WritesPerNode(events), PatchesPerNode(events)
	usage.Limit = summary.Limit
	if d, suspected, proven, ok := DiagnosisOf(events); ok {
		counts, err := FailedReconciles(t.w.Controller.Log(), d.Node, suspected, proven)
		if err != nil {
			return out, err
		}
		d.FailedAtSuspect, d.FailedAtProof = counts[0], counts[1]
		usage.Diagnosis = &d
	}
	out.usage = &usage
	return out, nil
}

// proc is one child process, in its own process group so that the cap
// kills kubectl children too.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func process(ctx context.Context, w *testenv.World, name string, args ...string) *proc {
	p := &proc{cmd: exec.CommandContext(ctx, name, args...)}
	p.cmd.Env = append(os.Environ(), "KUBECONFIG="+w.Kubeconfig, "NO_COLOR=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Cancel = func() error { return syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }
	p.cmd.WaitDelay = 5 * time.Second
	return p
}

func (p *proc) run() error { return p.cmd.Run() }

// maxRSS is the finished process's peak resident set in bytes (Linux
// reports kilobytes).
func (p *proc) maxRSS() int64 {
	if p.cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// tierOrder writes the TIER_ORDER file `standup tiers -o shell` prints for
// args (a live namespace, or --path for a checkout) into path.
func tierOrder(ctx context.Context, env benchEnv, w *testenv.World, path string, args ...string) error {
	p := process(ctx, w, env.standup, append([]string{"--kubeconfig", w.Kubeconfig, "tiers", "-o", "shell"}, args...)...)
	if err := p.run(); err != nil {
		return fmt.Errorf("standup tiers %s: %w\n%s", strings.Join(args, " "), err, p.stderr.String())
	}
	return os.WriteFile(path, p.stdout.Bytes(), 0o644)
}
