import { describeContract } from "./contract.case.js";
import { inProcess } from "./transports.js";

describeContract(inProcess);
