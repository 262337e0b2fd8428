"""The API server's own validation of built-in objects, beyond what OpenAPI schemas say.

Follows kubernetes pkg/apis/core/validation, pkg/apis/batch/validation,
pkg/apis/networking/validation and k8s.io/apimachinery's validation helpers: the same checks,
and error texts in the API server's words (`Invalid value: "x": …`, `Duplicate value`,
`Not found`, `Required value`, `Unsupported value`). Each function returns (JSON path, message)
pairs and never raises on wrong-typed input: the schema rule reports types.
"""
