"""NetworkPolicy semantics, case by case, as the Kubernetes documentation states them."""

from __future__ import annotations

import yaml

from trainops.knowledge.network.netpol import Cluster, Endpoint, Policy, PortSet, selector_matches
from trainops.model.objects import K8sObject

TCP_ALL = PortSet.of("TCP", 1, 65535)


def policy(spec: dict, namespace: str = "a", name: str = "p") -> Policy:
    doc = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    return Policy(K8sObject(doc, "policies.yaml", 1))


def pod(namespace: str = "a", ports: dict | None = None, **labels: str) -> Endpoint:
    return Endpoint("pod", namespace, labels, ports or {})


def allowed(
    policies: list[Policy], source: Endpoint, destination: Endpoint, namespaces=None
) -> PortSet:
    return Cluster(policies, namespaces or {}).allowed(source, destination).ports


def test_no_policy_leaves_everything_open():
    assert allowed([], pod(), pod()) == PortSet.everything()


def test_a_policy_without_policy_types_isolates_ingress_only_unless_it_has_egress_rules():
    deny_in = policy({"podSelector": {}})
    assert allowed([deny_in], pod(), pod()) == PortSet()
    assert (
        allowed([deny_in], pod(), pod(namespace="b")) == PortSet.everything()
    )  # b's pods are not selected
    with_egress = policy(
        {"podSelector": {}, "egress": [{"ports": [{"port": 53, "protocol": "UDP"}]}]}
    )
    assert allowed([with_egress], pod(namespace="a"), pod(namespace="b")) == PortSet.of("UDP", 53)


def test_both_ends_must_allow():
    egress = policy(
        {"podSelector": {}, "policyTypes": ["Egress"], "egress": [{"ports": [{"port": 80}]}]}
    )
    ingress = policy(
        {
            "podSelector": {},
            "policyTypes": ["Ingress"],
            "ingress": [{"ports": [{"port": 80, "endPort": 90}]}],
        },
        "b",
    )
    assert allowed([egress, ingress], pod("a"), pod("b")) == PortSet.of("TCP", 80)


def test_peers_pod_selector_is_the_policy_namespace_namespace_selector_any():
    only_same = policy(
        {"podSelector": {}, "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "x"}}}]}]}
    )
    assert allowed([only_same], pod("a", app="x"), pod("a")) == PortSet.everything()
    assert allowed([only_same], pod("b", app="x"), pod("a")) == PortSet()
    from_ns = policy(
        {
            "podSelector": {},
            "ingress": [
                {
                    "from": [
                        {
                            "namespaceSelector": {
                                "matchLabels": {"kubernetes.io/metadata.name": "b"}
                            },
                            "podSelector": {"matchLabels": {"app": "x"}},
                        }
                    ]
                }
            ],
        }
    )
    assert allowed([from_ns], pod("b", app="x"), pod("a")) == PortSet.everything()
    assert allowed([from_ns], pod("b", app="y"), pod("a")) == PortSet()
    team = policy(
        {
            "podSelector": {},
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "ml"}}}]}],
        }
    )
    assert allowed([team], pod("b"), pod("a"), {"b": {"team": "ml"}}) == PortSet.everything()
    assert allowed([team], pod("c"), pod("a"), {"c": {"team": "web"}}) == PortSet()


def test_ports_named_ranges_and_protocol_default():
    web = pod("a", ports={("http", "TCP"): 8080}, app="web")
    rule = policy(
        {
            "podSelector": {},
            "ingress": [
                {"ports": [{"port": "http"}, {"port": 9000, "endPort": 9010}, {"protocol": "UDP"}]}
            ],
        }
    )
    result = allowed([rule], pod("b"), web)
    assert result == PortSet({"TCP": [(8080, 8080), (9000, 9010)], "UDP": [(1, 65535)]})
    assert allowed([rule], pod("b"), pod("a")) == PortSet(
        {"TCP": [(9000, 9010)], "UDP": [(1, 65535)]}
    )  # no port named http


def test_ip_blocks_match_addresses_outside_the_pod_network_only():
    rule = policy(
        {
            "podSelector": {},
            "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}}]}],
        }
    )
    assert allowed([rule], pod("b"), pod("a")) == PortSet()
    assert (
        allowed([rule], Endpoint("node", None, address="10.2.3.4"), pod("a"))
        == PortSet.everything()
    )
    assert allowed([rule], Endpoint("node", None, address="10.1.3.4"), pod("a")) == PortSet()
    assert (
        allowed([rule], Endpoint("the API server", None), pod("a")) == PortSet.everything()
    )  # address unknown


def test_selector_operators():
    labels = {"tier": "gpu", "spot": "true"}
    assert selector_matches({}, labels)
    assert selector_matches(
        {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gpu", "cpu"]}]}, labels
    )
    assert not selector_matches(
        {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["gpu"]}]}, labels
    )
    assert selector_matches({"matchExpressions": [{"key": "spot", "operator": "Exists"}]}, labels)
    assert not selector_matches(
        {"matchExpressions": [{"key": "spot", "operator": "DoesNotExist"}]}, labels
    )
    assert not selector_matches(
        {"matchExpressions": [{"key": "spot", "operator": "Bogus"}]}, labels
    )
    assert not selector_matches("not a selector", labels)


def test_port_set_arithmetic_and_text():
    every = PortSet.of("TCP", 1, 65535)
    hole = every - PortSet.of("TCP", 23456)
    assert str(hole) == "TCP 1-23455, 23457-65535"
    assert str(every) == "every TCP port"
    assert (hole | PortSet.of("TCP", 23456)) == every
    assert str(PortSet()) == "nothing"


def test_wrong_typed_fields_do_not_crash():
    spec = yaml.safe_load(
        "{podSelector: {}, ingress: [{from: 3, ports: [{port: [1]}, 5]}, 7], egress: nope}"
    )
    assert allowed([policy(spec)], pod("b"), pod("a")) == PortSet()


def test_isolating_policies_are_found_by_label_as_by_trying_each():
    # The index by each policy's first matchLabels pair must find exactly what trying every
    # policy of the namespace finds, in the same order: selectors with several labels, none,
    # only expressions, a number where a string is meant, or no mapping at all.
    import random

    rng = random.Random(3)
    selectors = [
        {},
        {"matchLabels": {"app": "a"}},
        {"matchLabels": {"app": "b", "tier": "web"}},
        {"matchLabels": {"tier": "web"}},
        {"matchLabels": {"n": 1}},
        {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "c"]}]},
        {"matchLabels": {"app": "c"}, "matchExpressions": [{"key": "x", "operator": "Exists"}]},
        "not a mapping",
    ]
    policies = [
        policy({"podSelector": rng.choice(selectors), "policyTypes": ["Ingress"]}, name=f"p{i}")
        for i in range(60)
    ]
    cluster = Cluster(policies, {})
    for _ in range(300):
        labels = {
            key: rng.choice(["a", "b", "c", "web", "1"])
            for key in rng.sample(["app", "tier", "n", "x"], rng.randint(0, 4))
        }
        endpoint = pod("a", **labels)
        assert cluster.isolating(endpoint, "Ingress") == [
            p for p in policies if p.selects(endpoint, "Ingress")
        ]
