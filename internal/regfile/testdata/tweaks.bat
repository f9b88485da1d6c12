@echo off
:: Latency tweaks as batch files share them: reg.exe commands among others.
:: Written for latlab's tests.
reg add "HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile" /v "NetworkThrottlingIndex" /t REG_DWORD /d "4294967295" /f
Reg.exe add "HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile" /v "SystemResponsiveness" /t REG_DWORD /d "0" /f >nul 2>&1
PowerRun.exe /SW:0 Reg.exe add "HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl" /v "Win32PrioritySeparation" /t REG_DWORD /d 0x26 /f
REG ADD HKCU\Console /v QuickEdit /t REG_DWORD /d 0 /f && echo done
reg add "HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel" /v GlobalTimerResolutionRequests /t REG_DWORD /d 1 /f
for /f %%i in ('reg query HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters\Interfaces') do reg add %%i /v TcpAckFrequency /t REG_DWORD /d 1 /f
reg delete "HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile" /v "NetworkThrottlingIndex" /f
reg delete "HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched" /f
reg add "HKCU\Control Panel\Desktop" /v MenuShowDelay /t REG_SZ /d 0 /f
reg add "HKLM\SOFTWARE\latlab-test" /v Multi /t REG_MULTI_SZ /d "a\0b" /f
reg add "HKLM\SOFTWARE\latlab-test" /v Bin /t REG_BINARY /d 0102ff /f
reg add "HKLM\SOFTWARE\latlab-test" /v Q /t REG_QWORD /d 0x1 /f
reg add "HKLM\SOFTWARE\latlab-test" /ve /d "default \"quoted\"" /f
reg add "HKLM\SOFTWARE\latlab-test" /v Bad /t REG_DWORD /d notanumber /f
reg add HKLM\SOFTWARE\latlab-test /v Caret /d a^&b /f
bcdedit /set useplatformtick yes
netsh int tcp set global autotuninglevel=normal
