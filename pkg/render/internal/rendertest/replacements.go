package rendertest

import (
	"fmt"
	"strings"
	"testing"
)

// AppsPerNamespace is how many applications each namespace of
// ReplacementsFiles holds.
const AppsPerNamespace = 10

// ReplacementsRepo writes ReplacementsFiles(apps) in a temporary directory
// and returns it.
func ReplacementsRepo(tb testing.TB, apps int) string {
	tb.Helper()
	dir := tb.TempDir()
	WriteFiles(tb, dir, ReplacementsFiles(apps))
	return dir
}

// ReplacementsFiles is a repository of the shape of the home-ops template
// (kochhaus-home's kubernetes/network, onedr0p's cluster template): one
// Kustomization, cluster-apps, builds apps/, where each namespace's
// kustomization sets its namespace, pulls in shared components (alerts,
// the cluster's settings, network policies) and a shared replacements file (every Flux
// Kustomization's targetNamespace, from the Namespace), and lists one
// Flux Kustomization per application; each application's Kustomization
// builds its directory under base/ with components of its own (a gatus
// endpoint, a volsync claim) and postBuild variables. apps is the number
// of applications, AppsPerNamespace to a namespace: 160 makes 162 Flux
// Kustomizations and about 1,200 objects (scripts/bench-render.sh's
// gen-replacements-160). Its cluster path is clusters/c.
func ReplacementsFiles(apps int) map[string]string {
	files := map[string]string{
		"standup.yaml":                                  "apiVersion: standup.kubestandup.io/v1alpha1\nkind: Config\n",
		"clusters/c/flux-system.yaml":                   replacementsFluxSystem,
		"clusters/c/cluster-apps.yaml":                  replacementsClusterApps,
		"clusters/c/cluster-settings.yaml":              replacementsSettings("flux-system"),
		"components/alerts/kustomization.yaml":          component("./alert.yaml", "./provider.yaml"),
		"components/alerts/alert.yaml":                  replacementsAlert,
		"components/alerts/provider.yaml":               replacementsProvider,
		"components/vars/kustomization.yaml":            component("./cluster-settings.yaml"),
		"components/vars/cluster-settings.yaml":         replacementsSettings(""),
		"components/network-policy/kustomization.yaml":  component("./default-deny.yaml", "./same-namespace.yaml"),
		"components/network-policy/default-deny.yaml":   replacementsDefaultDeny,
		"components/network-policy/same-namespace.yaml": replacementsSameNamespace,
		"components/replacements/ks.yaml":               replacementsTargetNamespace,
		"components/gatus/guarded/kustomization.yaml":   replacementsGatusComponent,
		"components/gatus/guarded/config.yaml":          replacementsGatusConfig,
		"components/volsync/kustomization.yaml":         component("./claim.yaml", "./replicationsource.yaml"),
		"components/volsync/claim.yaml":                 replacementsClaim,
		"components/volsync/replicationsource.yaml":     replacementsReplicationSource,
	}
	for ns := 0; ns*AppsPerNamespace < apps; ns++ {
		namespace := fmt.Sprintf("ns-%02d", ns)
		entries := []string{"./namespace.yaml"}
		for a := ns * AppsPerNamespace; a < min(apps, (ns+1)*AppsPerNamespace); a++ {
			app := fmt.Sprintf("app-%03d", a)
			entries = append(entries, "./"+app+".yaml")
			files["apps/"+namespace+"/"+app+".yaml"] = replacementsAppKustomization(namespace, app, a%AppsPerNamespace)
			base := "base/" + namespace + "/" + app + "/app/"
			files[base+"kustomization.yaml"] = kustomization("./externalsecret.yaml", "./helmrelease.yaml", "./ocirepository.yaml")
			files[base+"externalsecret.yaml"] = strings.ReplaceAll(replacementsExternalSecret, "@app@", app)
			files[base+"helmrelease.yaml"] = strings.ReplaceAll(replacementsHelmRelease, "@app@", app)
			files[base+"ocirepository.yaml"] = strings.ReplaceAll(replacementsOCIRepository, "@app@", app)
		}
		files["apps/"+namespace+"/namespace.yaml"] = replacementsNamespace
		files["apps/"+namespace+"/kustomization.yaml"] = kustomization(entries...) +
			"namespace: " + namespace + "\ncomponents:\n  - ../../components/alerts\n  - ../../components/vars\n  - ../../components/network-policy\nreplacements:\n  - path: ../../components/replacements/ks.yaml\n"
	}
	return files
}

// kustomization is a kustomization file listing resources.
func kustomization(resources ...string) string {
	return "---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - " + strings.Join(resources, "\n  - ") + "\n"
}

// component is a kustomize Component listing resources.
func component(resources ...string) string {
	return "---\napiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - " + strings.Join(resources, "\n  - ") + "\n"
}

// replacementsAppKustomization is the Flux Kustomization of one
// application: the first of a namespace depends on nothing, the others on
// the first.
func replacementsAppKustomization(namespace, app string, index int) string {
	ks := `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: @app@
spec:
  components:
    - ../../../../components/gatus/guarded
    - ../../../../components/volsync
  interval: 1h
  path: ./base/@ns@/@app@/app
  postBuild:
    substitute:
      APP: @app@
      GATUS_SUBDOMAIN: @app@
      VOLSYNC_CAPACITY: 2Gi
  prune: true
  retryInterval: 2m
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
  timeout: 5m
  wait: false
`
	if index > 0 {
		ks += "  dependsOn:\n    - name: " + fmt.Sprintf("app-%03d", mustAtoi(app)-index) + "\n"
	}
	return strings.NewReplacer("@ns@", namespace, "@app@", app).Replace(ks)
}

// mustAtoi reads the number of an application's name, app-NNN.
func mustAtoi(app string) int {
	var n int
	fmt.Sscanf(app, "app-%d", &n)
	return n
}

func replacementsSettings(namespace string) string {
	meta := "  name: cluster-settings\n"
	if namespace != "" {
		meta += "  namespace: " + namespace + "\n"
	}
	return "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n" + meta +
		"data:\n  CLUSTER_DOMAIN: example.org\n  TIMEZONE: Europe/Paris\n  CLUSTER_CIDR: 10.42.0.0/16\n  SERVICE_CIDR: 10.43.0.0/16\n  STORAGE_CLASS: ceph-block\n"
}

const replacementsFluxSystem = `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1h
  ref: {branch: main}
  url: https://example.com/home-ops.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1h
  path: ./clusters/c
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`

const replacementsClusterApps = `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: cluster-apps
  namespace: flux-system
spec:
  interval: 1h
  path: ./apps
  postBuild:
    substitute:
      CLUSTER: c
    substituteFrom:
      - name: cluster-settings
        kind: ConfigMap
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  patches:
    - # Kustomization defaults for every child Kustomization
      patch: |-
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: _
        spec:
          deletionPolicy: WaitForTermination
          postBuild:
            substituteFrom:
              - name: cluster-settings
                kind: ConfigMap
      target:
        group: kustomize.toolkit.fluxcd.io
        kind: Kustomization
`

const replacementsNamespace = `---
apiVersion: v1
kind: Namespace
metadata:
  name: _
  annotations:
    kustomize.toolkit.fluxcd.io/prune: disabled
`

const replacementsTargetNamespace = `---
- # Apply targetNamespace to all Flux Kustomizations
  source:
    kind: Namespace
    fieldPath: metadata.name
  targets:
    - select:
        kind: Kustomization
        group: kustomize.toolkit.fluxcd.io
      fieldPaths:
        - spec.targetNamespace
      options:
        create: true
`

const replacementsAlert = `---
apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Alert
metadata:
  name: alertmanager
spec:
  providerRef:
    name: alertmanager
  eventSeverity: error
  eventSources:
    - {kind: GitRepository, name: "*"}
    - {kind: HelmRelease, name: "*"}
    - {kind: Kustomization, name: "*"}
    - {kind: OCIRepository, name: "*"}
  exclusionList:
    - error.*lookup.*github
    - dial.*tcp.*timeout
`

const replacementsProvider = `---
apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Provider
metadata:
  name: alertmanager
spec:
  type: alertmanager
  address: http://alertmanager-operated.observability.svc.cluster.local:9093/api/v2/alerts/
`

const replacementsGatusComponent = `---
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
configMapGenerator:
  - name: ${APP}-gatus-ep
    files:
      - config.yaml=./config.yaml
    options:
      labels:
        gatus.io/enabled: "true"
generatorOptions:
  disableNameSuffixHash: true
`

const replacementsGatusConfig = `endpoints:
  - name: "${APP}"
    group: guarded
    url: 1.1.1.1
    interval: 1m
    dns:
      query-name: "${GATUS_SUBDOMAIN:=${APP}}.${CLUSTER_DOMAIN}"
      query-type: A
    conditions:
      - len([BODY]) == 0
`

const replacementsClaim = `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: "${APP}"
spec:
  accessModes: ["${VOLSYNC_ACCESSMODES:=ReadWriteOnce}"]
  dataSourceRef:
    kind: ReplicationDestination
    apiGroup: volsync.backube
    name: "${APP}-dst"
  resources:
    requests:
      storage: "${VOLSYNC_CAPACITY:=5Gi}"
  storageClassName: "${VOLSYNC_STORAGECLASS:=${STORAGE_CLASS}}"
`

const replacementsReplicationSource = `---
apiVersion: volsync.backube/v1alpha1
kind: ReplicationSource
metadata:
  name: "${APP}"
spec:
  sourcePVC: "${APP}"
  trigger:
    schedule: "15 */8 * * *"
  restic:
    copyMethod: "${VOLSYNC_COPYMETHOD:=Snapshot}"
    pruneIntervalDays: 14
    repository: "${APP}-volsync-secret"
    volumeSnapshotClassName: "${VOLSYNC_SNAPSHOTCLASS:=csi-ceph-blockpool}"
    cacheCapacity: "${VOLSYNC_CACHE_CAPACITY:=4Gi}"
    moverSecurityContext:
      runAsUser: 1000
      runAsGroup: 1000
      fsGroup: 1000
    retain:
      daily: 7
      within: 3d
`

const replacementsOCIRepository = `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: @app@
spec:
  interval: 15m
  layerSelector:
    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip
    operation: copy
  ref:
    tag: 4.2.0
  url: oci://ghcr.io/bjw-s-labs/helm/app-template
`

const replacementsHelmRelease = `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: @app@
spec:
  interval: 1h
  chartRef:
    kind: OCIRepository
    name: @app@
  install:
    remediation:
      retries: -1
  upgrade:
    cleanupOnFail: true
    remediation:
      retries: 3
  values:
    controllers:
      @app@:
        annotations:
          reloader.stakater.com/auto: "true"
        containers:
          app:
            image:
              repository: ghcr.io/home-operations/@app@
              tag: 1.2.3@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
            env:
              TZ: ${TIMEZONE}
              APP__PORT: &port 8080
            probes:
              liveness: &probes
                enabled: true
                custom: true
                spec:
                  httpGet:
                    path: /healthz
                    port: *port
                  initialDelaySeconds: 0
                  periodSeconds: 10
                  timeoutSeconds: 1
                  failureThreshold: 3
              readiness: *probes
            securityContext:
              allowPrivilegeEscalation: false
              readOnlyRootFilesystem: true
              capabilities: {drop: ["ALL"]}
            resources:
              requests:
                cpu: 10m
              limits:
                memory: 512Mi
    defaultPodOptions:
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        fsGroup: 1000
        fsGroupChangePolicy: OnRootMismatch
    service:
      app:
        controller: @app@
        ports:
          http:
            port: *port
    route:
      app:
        hostnames: ["{{ .Release.Name }}.${CLUSTER_DOMAIN}"]
        parentRefs:
          - name: internal
            namespace: kube-system
            sectionName: https
    persistence:
      config:
        existingClaim: @app@
      tmp:
        type: emptyDir
`

const replacementsDefaultDeny = `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny-ingress
spec:
  podSelector: {}
  policyTypes: [Ingress]
`

const replacementsSameNamespace = `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-same-namespace
spec:
  podSelector: {}
  ingress:
    - from:
        - podSelector: {}
`

const replacementsExternalSecret = `---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: @app@
spec:
  secretStoreRef:
    kind: ClusterSecretStore
    name: onepassword
  target:
    name: @app@-secret
    template:
      data:
        API_KEY: "{{ .API_KEY }}"
        DATABASE_URL: "postgres://{{ .POSTGRES_USER }}:{{ .POSTGRES_PASS }}@postgres-rw.database.svc.cluster.local/@app@"
  dataFrom:
    - extract:
        key: @app@
    - extract:
        key: cloudnative-pg
`
