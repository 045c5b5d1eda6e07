import { describeContract } from "./contract.case.js";
import { legacySse } from "./transports.js";

describeContract(legacySse);
