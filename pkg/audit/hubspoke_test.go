package audit

import (
	"slices"
	"testing"
)

// TestAuditNamesTheSpoke: in a hub-and-spoke fleet (testdata/hub-spoke-race,
// from flux2-hub-spoke-example), the summary names every cluster the audit
// covered, and a finding on a spoke names the spoke. staging's infra-configs
// lost its dependsOn on infra-controllers, so its ClusterIssuer races the
// cert-manager chart the hub installs into the staging spoke; production
// keeps its edge and has no finding. The table also holds the local objects
// of a one-cluster repository: no place names a cluster there.
func TestAuditNamesTheSpoke(t *testing.T) {
	tests := []struct {
		name, root, path string
		wantClusters     []string
		// want is each place as "CODE Kustomization Object cluster".
		want []string
	}{{
		name:         "hub and spokes",
		root:         "testdata/hub-spoke-race",
		path:         "hub",
		wantClusters: []string{LocalCluster, "production/cluster-kubeconfig", "staging/cluster-kubeconfig"},
		want:         []string{"MISSING_EDGE Kustomization/staging/infra-configs ClusterIssuer/letsencrypt staging/cluster-kubeconfig"},
	}, {
		name:         "one cluster",
		root:         "testdata/onedr0p-cert-manager",
		path:         "kubernetes/flux/cluster",
		wantClusters: []string{LocalCluster},
		want:         []string{"SECOND_ORDER_SAME_PASS Kustomization/cert-manager/cert-manager ClusterIssuer/letsencrypt-production "},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := auditDir(t, tt.root, tt.path)
			if !slices.Equal(r.Clusters, tt.wantClusters) {
				t.Errorf("Clusters = %q, want %q", r.Clusters, tt.wantClusters)
			}
			var got []string
			for _, h := range r.Hazards {
				got = append(got, string(h.Code)+" "+h.Kustomization.String()+" "+h.Object.String()+" "+h.Cluster)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("places\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
