/**
 * Route 53 Resolver DNS Firewall on the VPC. DNS is the one egress the network ACLs cannot
 * close: the functions must resolve names through the VPC resolver, and a hostile page cannot
 * make the guard connect anywhere private, but code that got to run inside a function could
 * still leak data in DNS queries or look up a command-and-control host. The firewall answers
 * NXDOMAIN for every name on AWS's managed threat lists (malware, botnet command and control,
 * the aggregate threat list), for every query from the VPC, the guard's own included.
 *
 * CloudFormation references a domain list by id only, and AWS gives its managed lists different
 * ids in every region, so a small custom resource (infra/custom-resources/managed-domain-lists.cjs)
 * looks them up by name at deploy time.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CustomResource, Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import type * as ec2 from "aws-cdk-lib/aws-ec2";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import * as route53resolver from "aws-cdk-lib/aws-route53resolver";
import { Construct } from "constructs";

/** AWS-managed threat lists the firewall blocks, in rule order. */
export const MANAGED_DOMAIN_LISTS = ["AWSManagedDomainsMalwareDomainList", "AWSManagedDomainsBotnetCommandandControl", "AWSManagedDomainsAggregateThreatList"] as const;

/** The custom resource's source, deployed inline (see the file's header). */
export const MANAGED_DOMAIN_LISTS_SOURCE = readFileSync(fileURLToPath(new URL("../custom-resources/managed-domain-lists.cjs", import.meta.url)), "utf8");

export interface DnsFirewallProps {
  vpc: ec2.IVpc;
  /** Where the lookup function runs (the function subnets: Control Tower wants functions in a VPC). */
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  logRetentionDays: number;
  logRemovalPolicy: RemovalPolicy;
}

export class DnsFirewall extends Construct {
  readonly ruleGroup: route53resolver.CfnFirewallRuleGroup;
  readonly association: route53resolver.CfnFirewallRuleGroupAssociation;
  readonly lookupFunction: lambda.Function;

  constructor(scope: Construct, id: string, props: DnsFirewallProps) {
    super(scope, id);

    const logGroup = new logs.LogGroup(this, "LookupLogs", { retention: props.logRetentionDays, removalPolicy: props.logRemovalPolicy });
    const role = new iam.Role(this, "LookupRole", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: "webgate DNS Firewall: list the managed domain lists; own log group; VPC network interfaces",
    });
    role.addToPolicy(new iam.PolicyStatement({ sid: "OwnLogGroup", actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }));
    role.addToPolicy(new iam.PolicyStatement({ sid: "ListDomainLists", actions: ["route53resolver:ListFirewallDomainLists"], resources: ["*"] }));
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: "VpcNetworkInterfaces",
        actions: ["ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets", "ec2:DeleteNetworkInterface", "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"],
        resources: ["*"],
      }),
    );
    Validations.of(role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "route53resolver:ListFirewallDomainLists and the EC2 network-interface actions Lambda needs in a VPC support no resource-level scoping; the role has no other wildcard and no write access to DNS Firewall.",
    });

    this.lookupFunction = new lambda.Function(this, "Lookup", {
      description: "webgate: ids of the AWS-managed DNS Firewall domain lists (CloudFormation custom resource)",
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: "index.handler",
      code: lambda.Code.fromInline(MANAGED_DOMAIN_LISTS_SOURCE),
      role,
      timeout: Duration.seconds(60),
      memorySize: 128,
      // One deploy-time call at a time is all it ever serves.
      reservedConcurrentExecutions: 1,
      logGroup,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
    });
    // It reaches the Route 53 Resolver API through the NAT: wait for the route to exist.
    this.lookupFunction.node.addDependency(props.vpc.internetConnectivityEstablished);
    Validations.of(this.lookupFunction).acknowledge({
      id: "AwsSolutions-L1",
      reason: "Node.js 22, the runtime of every webgate function (see the API functions' acknowledgement); this one only runs during deploys.",
    });

    const lists = new CustomResource(this, "ManagedDomainLists", {
      serviceToken: this.lookupFunction.functionArn,
      resourceType: "Custom::WebgateManagedDomainLists",
      properties: { Names: [...MANAGED_DOMAIN_LISTS] },
    });

    this.ruleGroup = new route53resolver.CfnFirewallRuleGroup(this, "RuleGroup", {
      firewallRules: MANAGED_DOMAIN_LISTS.map((name, i) => ({
        firewallDomainListId: lists.getAttString(name),
        priority: (i + 1) * 100,
        action: "BLOCK",
        blockResponse: "NXDOMAIN",
      })),
    });
    this.association = new route53resolver.CfnFirewallRuleGroupAssociation(this, "Association", {
      firewallRuleGroupId: this.ruleGroup.attrId,
      vpcId: props.vpc.vpcId,
      // 101-9900 are the priorities left to customers (Firewall Manager takes the ends).
      priority: 101,
    });
  }
}
