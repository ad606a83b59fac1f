// A real control plane for tests: kube-apiserver, etcd and kube-controller-manager, started by the project.
// See docs/testenv.md.
export {
  type Assets,
  AssetsError,
  CONTROLLER_MANAGER,
  cacheDir,
  ETCD_VERSION,
  ensureAssets,
  KUBERNETES_VERSION,
  locateAssets,
  locateControllerManager,
} from "./assets.ts"
export {
  attachControlPlane,
  Cluster,
  type ClusterInfo,
  type ControlPlane,
  type ControlPlaneHandle,
  type ControlPlaneInfo,
  type ControlPlaneOptions,
  type Credentials,
  compactEtcd,
  type PolicyRule,
  readControlPlaneInfo,
  startControlPlane,
} from "./controlplane.ts"
export {
  type Endpoint,
  type KubeResponse,
  kubeRequest,
  kubeWatch,
  type Watch,
  type WatchEvent,
} from "./kube-http.ts"
export { renderKubeconfig } from "./kubeconfig.ts"
