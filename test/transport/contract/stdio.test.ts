import { describeContract } from "./contract.case.js";
import { stdio } from "./transports.js";

describeContract(stdio);
