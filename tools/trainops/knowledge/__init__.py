"""What the cluster does: the behaviour of the API server, its admission, and the operators.

The API server's validation of built-in kinds (`apivalidation`), schemas and CEL of built-in
kinds and CRDs (`schema`), Pod Security Standards (`psa`), where objects hold pod templates
(`pod_templates`) and the Pods the operators build from them (`operator_pods`), the network
model of Services and NetworkPolicies (`network`), what Kueue manages and admits (`kueue`) and
where its flavors place pods (`flavors`), cloud profiles (`profiles`) and the providers'
reservations (`reservations`), an environment's capacity as a whole (`capacity`), the order Argo
CD and Flux apply objects in (`sync_phases`), what training scripts do (`scripts`) and image and
base pins (`pins`). Each encodes an upstream fact,
cited where it is written. It may import `trainops.model` and `trainops.render`, never the rules.
"""
