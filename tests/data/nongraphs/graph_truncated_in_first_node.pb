
;
xPlace