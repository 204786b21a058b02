/**
 * The network the functions run in: a 2-AZ VPC whose function subnets can reach the public
 * internet on 80/443 only (through NAT), the AWS APIs through VPC endpoints, and nothing private.
 *
 * Two layers refuse private destinations beneath the guard library (shared/guard):
 * - the functions' security group allows egress only to TCP 443/80 and to the endpoints;
 * - a network ACL on the function subnets denies every private, shared (RFC 6598) and link-local
 *   range, so even a guard bug cannot reach another host in the VPC, a peered network or the
 *   instance metadata range. Rule order is documented in the README (Deploy) and in {@link NACL_RULES}.
 */
import { type RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

/** Destinations the function subnets may never reach (RFC 1918, RFC 6598, RFC 3927). */
export const DENIED_CIDRS = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16"] as const;

/**
 * Rule numbers of the function subnets' ACL. A network ACL evaluates entries from the lowest
 * number up and stops at the first match, so the narrow allows for the VPC's own services come
 * first, then the private-range denies, then the public allows; anything else hits the implicit
 * final deny (`*`).
 */
export const NACL_RULES = {
  /** Egress: TCP 443 to the endpoint subnets (Secrets Manager interface endpoint). */
  endpointHttps: 100,
  /** Egress/ingress: DNS to/from AmazonProvidedDNS (VPC base + 2), UDP then TCP. */
  dnsUdp: 110,
  dnsTcp: 120,
  /** Ingress: return traffic from the endpoint subnets (ephemeral ports). */
  endpointReturn: 100,
  /** First of the deny rules, one per entry of DENIED_CIDRS, in steps of 10. */
  denyBase: 200,
  /** Egress: HTTPS and HTTP to the internet (through NAT, or DynamoDB's gateway endpoint). */
  internetHttps: 300,
  internetHttp: 310,
  /** Ingress: return traffic from the internet (ephemeral ports 1024-65535). */
  internetReturn: 300,
} as const;

export interface NetworkProps {
  /** A private IPv4 range, /16 to /20. */
  cidr: string;
  natGateways: number;
  /** Two zone names; without them the VPC takes the first two of the stack's region. */
  availabilityZones?: readonly [string, string];
  logRetentionDays: number;
  removalPolicy: RemovalPolicy;
}

/** The VPC, the functions' security group, the endpoints and the function subnets' ACL. */
export class Network extends Construct {
  readonly vpc: ec2.Vpc;
  /** Attach to every function: egress only TCP 443/80 to the internet and 443 to the endpoints. */
  readonly functionSecurityGroup: ec2.SecurityGroup;
  readonly endpointSecurityGroup: ec2.SecurityGroup;
  /** The private-with-egress subnets the functions run in. */
  readonly functionSubnets: ec2.SubnetSelection;
  readonly functionAcl: ec2.NetworkAcl;
  readonly secretsManagerEndpoint: ec2.InterfaceVpcEndpoint;
  readonly dynamoDbEndpoint: ec2.GatewayVpcEndpoint;
  readonly flowLogGroup: logs.LogGroup;
  /** Ids of the NAT gateways (one per AZ with natGateways 2), for their alarms. */
  readonly natGatewayIds: string[];

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);

    this.vpc = new ec2.Vpc(this, "Vpc", {
      ipAddresses: ec2.IpAddresses.cidr(props.cidr),
      // Fixed zones need no lookup in the account at synth (an environment with a region): the
      // stack answers its availabilityZones with them (WebgateStack).
      ...(props.availabilityZones ? { availabilityZones: [...props.availabilityZones] } : { maxAzs: 2 }),
      natGateways: props.natGateways,
      subnetConfiguration: [
        // Nothing launched here gets a public address: the NAT gateways bring their own Elastic IPs.
        { name: "public", subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24, mapPublicIpOnLaunch: false },
        { name: "functions", subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        // The interface endpoint gets subnets of its own: its ENIs stay outside the function
        // subnets' ACL, and that ACL can allow 443 to these two small ranges only.
        { name: "endpoints", subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 26 },
      ],
    });
    this.functionSubnets = { subnetGroupName: "functions" };
    this.natGatewayIds = this.vpc.publicSubnets.flatMap((subnet) => {
      const nat = subnet.node.tryFindChild("NATGateway");
      return nat instanceof ec2.CfnNatGateway ? [nat.ref] : [];
    });

    this.flowLogGroup = new logs.LogGroup(this, "FlowLogs", {
      retention: props.logRetentionDays,
      removalPolicy: props.removalPolicy,
    });
    this.vpc.addFlowLog("FlowLog", {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(this.flowLogGroup),
      trafficType: ec2.FlowLogTrafficType.ALL,
    });

    this.functionSecurityGroup = new ec2.SecurityGroup(this, "FunctionSg", {
      vpc: this.vpc,
      description: "webgate functions: egress TCP 443/80 to the internet and 443 to VPC endpoints only",
      allowAllOutbound: false,
    });
    this.endpointSecurityGroup = new ec2.SecurityGroup(this, "EndpointSg", {
      vpc: this.vpc,
      description: "webgate VPC interface endpoints: HTTPS from the functions only",
      allowAllOutbound: false,
    });
    this.endpointSecurityGroup.addIngressRule(this.functionSecurityGroup, ec2.Port.tcp(443), "HTTPS from the functions");
    this.functionSecurityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), "HTTPS to origins, providers and DynamoDB");
    this.functionSecurityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(80), "HTTP to origins");
    this.functionSecurityGroup.addEgressRule(this.endpointSecurityGroup, ec2.Port.tcp(443), "HTTPS to the VPC interface endpoints");

    this.dynamoDbEndpoint = this.vpc.addGatewayEndpoint("DynamoDb", {
      service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: [this.functionSubnets],
    });
    this.secretsManagerEndpoint = this.vpc.addInterfaceEndpoint("SecretsManager", {
      service: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      privateDnsEnabled: true,
      subnets: { subnetGroupName: "endpoints" },
      securityGroups: [this.endpointSecurityGroup],
      // `open: true` would add an ingress rule from the whole VPC CIDR.
      open: false,
    });

    this.functionAcl = this.buildFunctionAcl(props.cidr);

    // restrictDefaultSecurityGroup (a CDK feature flag) strips the default security group's
    // rules with a deploy-time custom resource whose function CDK creates outside the VPC.
    const restrictProvider = Stack.of(this).node.tryFindChild("Custom::VpcRestrictDefaultSGCustomResourceProvider");
    if (restrictProvider) {
      Validations.of(restrictProvider).acknowledge({
        id: "cdk-validator-cfnguard::lambda_inside_vpc_check",
        reason:
          "CDK's own deploy-time provider that removes the default security group's rules (feature flag restrictDefaultSecurityGroup); it only calls the EC2 API while CloudFormation runs and handles no request data. Placing it in the VPC is not configurable.",
      });
    }
  }

  private buildFunctionAcl(vpcCidr: string): ec2.NetworkAcl {
    const acl = new ec2.NetworkAcl(this, "FunctionAcl", { vpc: this.vpc, subnetSelection: this.functionSubnets });
    const egress = ec2.TrafficDirection.EGRESS;
    const ingress = ec2.TrafficDirection.INGRESS;
    const ephemeral = ec2.AclTraffic.tcpPortRange(1024, 65535);
    const dns = ec2.AclCidr.ipv4(`${amazonDnsAddress(vpcCidr)}/32`);
    const entry = (id: string, ruleNumber: number, direction: ec2.TrafficDirection, cidr: ec2.AclCidr, traffic: ec2.AclTraffic, ruleAction = ec2.Action.ALLOW) =>
      acl.addEntry(id, { ruleNumber, direction, cidr, traffic, ruleAction });

    // Exceptions for the VPC's own services, evaluated before the private-range denies.
    // The interface endpoint subnets (two /26) on 443, and their replies.
    this.vpc.isolatedSubnets.forEach((subnet, i) => {
      const cidr = ec2.AclCidr.ipv4(subnet.ipv4CidrBlock);
      entry(`EgressEndpoint${i}`, NACL_RULES.endpointHttps + i, egress, cidr, ec2.AclTraffic.tcpPort(443));
      entry(`IngressEndpoint${i}`, NACL_RULES.endpointReturn + i, ingress, cidr, ephemeral);
    });
    // AmazonProvidedDNS (VPC base + 2). AWS documents that ACLs do not filter traffic to the
    // Amazon DNS server; the explicit rules keep resolution working should that ever change.
    entry("EgressDnsUdp", NACL_RULES.dnsUdp, egress, dns, ec2.AclTraffic.udpPort(53));
    entry("EgressDnsTcp", NACL_RULES.dnsTcp, egress, dns, ec2.AclTraffic.tcpPort(53));
    entry("IngressDnsUdp", NACL_RULES.dnsUdp, ingress, dns, ec2.AclTraffic.udpPortRange(1024, 65535));
    entry("IngressDnsTcp", NACL_RULES.dnsTcp, ingress, dns, ephemeral);

    DENIED_CIDRS.forEach((cidr, i) => {
      const deny = ec2.AclCidr.ipv4(cidr);
      entry(`EgressDeny${i}`, NACL_RULES.denyBase + i * 10, egress, deny, ec2.AclTraffic.allTraffic(), ec2.Action.DENY);
      entry(`IngressDeny${i}`, NACL_RULES.denyBase + i * 10, ingress, deny, ec2.AclTraffic.allTraffic(), ec2.Action.DENY);
    });

    // The public internet. DynamoDB's gateway endpoint routes to DynamoDB's public prefix-list
    // addresses, so it is covered here and needs no exception above.
    const anywhere = ec2.AclCidr.anyIpv4();
    entry("EgressHttps", NACL_RULES.internetHttps, egress, anywhere, ec2.AclTraffic.tcpPort(443));
    entry("EgressHttp", NACL_RULES.internetHttp, egress, anywhere, ec2.AclTraffic.tcpPort(80));
    // ACLs are stateless: replies to the functions' outbound connections come back to ephemeral
    // ports. Nothing listens in these subnets, so no other inbound traffic is allowed.
    entry("IngressReturn", NACL_RULES.internetReturn, ingress, anywhere, ephemeral);

    Validations.of(acl).acknowledge({
      id: "cdk-validator-cfnguard::nacl_no_unrestricted_ssh_rdp_check",
      reason:
        "Ingress rule 300 admits TCP 1024-65535 from anywhere because ACLs are stateless: it carries the replies to the functions' own outbound connections, and that range happens to contain 3389. Nothing listens in these subnets, and the functions' security group has no ingress rule at all, so no connection to port 3389 (or 22, which the rule does not cover) can be opened.",
    });
    Validations.of(acl).acknowledge({
      id: "AwsSolutions-VPC3",
      reason:
        "The ACL is deliberate defense in depth: it denies private, shared and link-local ranges to the function subnets beneath the SSRF guard; its rule order is documented in the README (Deploy).",
    });
    return acl;
  }
}

/**
 * The address of AmazonProvidedDNS: the VPC's base address plus two.
 *
 * @param cidr an IPv4 CIDR such as `10.20.0.0/16`
 */
export function amazonDnsAddress(cidr: string): string {
  const [base] = cidr.split("/");
  const octets = (base ?? "").split(".").map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new Error(`Not an IPv4 CIDR: ${cidr}`);
  }
  const value = (((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]! + 2) >>> 0;
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}
