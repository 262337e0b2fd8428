"""certificates.k8s.io CertificateSigningRequests as kube-apiserver v1.32.13 validates them on
create (pkg/apis/certificates/validation/validation.go: ValidateCertificateSigningRequestCreate,
validateCSR, ValidateSignerName). The request is parsed as Go's encoding/pem and
x509.ParseCertificateRequest do, with the `cryptography` package."""

from __future__ import annotations

import base64
import binascii
import re

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    duplicate,
    invalid,
    not_supported,
    required,
    too_long,
)
from trainops.model.shape import mapping

_USAGES = (
    "any", "client auth", "code signing", "content commitment", "crl sign", "cert sign",
    "data encipherment", "decipher only", "digital signature", "email protection",
    "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement",
    "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
    "server auth", "signing", "timestamping",
)  # fmt: skip
_LEGACY_SIGNER = "kubernetes.io/legacy-unknown"
_PEM = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.S)
_MIN_EXPIRATION = 600


def signer_name(name: str, path: str) -> Errors:
    """ValidateSignerName: `<domain>/<path>`, the domain of at least two DNS labels."""
    if not name:
        return [(path, required())]
    segments = name.split("/")
    if len(segments) != 2:
        message = "must be a fully qualified domain and path of the form 'example.com/signer-name'"
        return [(path, invalid(name, message))]
    domain, rest = segments
    errors: Errors = []
    if len(domain) > names.DNS1123_SUBDOMAIN_MAX:
        errors.append((path, too_long(names.DNS1123_SUBDOMAIN_MAX)))
    labels = domain.split(".")
    for label in labels:
        found = names.dns1123_label(label)
        if found:
            errors += [(path, invalid(domain, f'validating label "{label}": {m}')) for m in found]
            break
    if len(labels) < 2:
        message = "should be a domain with at least two segments separated by dots"
        errors.append((path, invalid(domain, message)))
    for component in rest.split("."):
        found = names.dns1123_subdomain(component)
        if found:
            errors += [
                (path, invalid(rest, f'validating component "{component}": {m}')) for m in found
            ]
            break
    most = names.DNS1123_SUBDOMAIN_MAX + names.DNS1123_LABEL_MAX
    if len(rest) > most:
        errors.append((path, too_long(most)))
    return errors


def go_bytes(data: bytes) -> GoValue:
    """A []byte as field.Invalid prints it (%#v)."""
    return GoValue("[]byte{" + ", ".join(f"0x{b:x}" for b in data) + "}")


def request_error(data: bytes) -> str | None:
    """validateCSR: the first PEM block must be a CERTIFICATE REQUEST that parses."""
    block = _PEM.search(data)
    if block is None or block.group(1) != b"CERTIFICATE REQUEST":
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        der = base64.b64decode(re.sub(rb"\s+", b"", block.group(2)), validate=True)
    except binascii.Error:
        return "PEM block type must be CERTIFICATE REQUEST"  # pem.Decode finds no block
    from cryptography import x509

    try:
        x509.load_der_x509_csr(der)
    except ValueError as error:
        return f"x509: malformed certificate request ({error})"
    return None


def certificate_signing_request(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    request = spec.get("request")
    if isinstance(request, str):
        try:
            data = base64.b64decode(request, validate=True)
        except binascii.Error:
            data = None  # a decoding error of its own (the schema's byte format)
        if data is not None:
            problem = request_error(data)
            if problem:
                errors.append(("spec.request", invalid(go_bytes(data), problem)))
    elif request is None:
        errors.append(
            (
                "spec.request",
                "Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST",
            )
        )
    usages = spec.get("usages")
    usages = usages if isinstance(usages, list) else []
    if not usages:
        errors.append(("spec.usages", required("usages must be provided")))
    seen: set[str] = set()
    for index, usage in enumerate(usages):
        usage = usage if isinstance(usage, str) else ""
        if usage not in _USAGES:
            errors.append((f"spec.usages[{index}]", not_supported(usage, _USAGES)))
        if usage in seen:
            errors.append((f"spec.usages[{index}]", duplicate(usage)))
        seen.add(usage)
    signer = spec.get("signerName")
    signer = signer if isinstance(signer, str) else ""
    errors += signer_name(signer, "spec.signerName")
    if signer == _LEGACY_SIGNER:
        message = "the legacy signerName is not allowed via this API version"
        errors.append(("spec.signerName", invalid(signer, message)))
    seconds = spec.get("expirationSeconds")
    if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds < _MIN_EXPIRATION:
        message = "may not specify a duration less than 600 seconds (10 minutes)"
        errors.append(("spec.expirationSeconds", invalid(seconds, message)))
    return errors


LEFT_OUT = {
    "CertificateSigningRequest": (
        "the status (conditions, certificate) a create drops; how strictly the DER is parsed "
        "(Go's x509 against the cryptography package's)"
    )
}
